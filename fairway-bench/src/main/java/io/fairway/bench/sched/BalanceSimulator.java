package io.fairway.bench.sched;

import io.fairway.director.Backend;
import io.fairway.director.Member;
import io.fairway.director.Request;
import io.fairway.director.sched.BoundedLoadDirector;
import io.fairway.director.sched.DestSpec;
import io.fairway.director.sched.Flow;
import io.fairway.director.sched.KernelScheduler;
import io.fairway.director.sched.SchedDest;
import io.fairway.director.sched.SchedService;
import io.fairway.director.sched.Schedulers;
import io.fairway.director.varnish.ShardDirector;
import io.fairway.director.varnish.ShardParams;
import java.net.InetAddress;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;

/**
 * Balance and disruption of the consistent-hashing schedulers, printed as a Markdown table.
 *
 * <p>Balance: {@code max/mean} of the keys each server receives, over K uniformly random keys (mh:
 * client addresses; shard: 32-bit keys). With K keys and N servers, sampling alone adds about
 * {@code 3.5·sqrt(N/K)} to a perfect 1.0, so K is large. For the bounded-load variant every key is
 * a connection that stays open, so the balance is of live connections. Disruption: the share of
 * keys that go elsewhere after one server is removed (ideal: 1/N).
 *
 * <p>Run: {@code java -cp fairway-bench/target/benchmarks.jar
 * io.fairway.bench.sched.BalanceSimulator [keys]}
 */
public final class BalanceSimulator {
  private static final String ALL_UP = "every server is up, so one is picked";

  private BalanceSimulator() {}

  interface Picker {
    Object pick(int k);
  }

  public static void main(String[] args) throws Exception {
    int keys = args.length > 0 ? Integer.parseInt(args[0]) : 2_000_000;
    System.out.println("Uniform keys (" + keys + " random client addresses / 32-bit keys):");
    System.out.println();
    System.out.println(
        "| algorithm | N | max/mean, exact table share | max/mean over keys | moved when 1 removed | ideal moved |");
    System.out.println("|---|---:|---:|---:|---:|---:|");
    int[] clients = clients(keys, 0);
    for (int n : new int[] {100, 1000}) {
      row(
          "mh (kernel, M=4093)",
          n,
          exactMh(n, 4093),
          clients,
          mh(n, 4093, 0, -1, clients),
          mh(n, 4093, 0, n / 2, clients));
      row(
          "mh (M=65537)",
          n,
          exactMh(n, 65537),
          clients,
          mh(n, 65537, 0, -1, clients),
          mh(n, 65537, 0, n / 2, clients));
      row(
          "shard, 67 replicas",
          n,
          Double.NaN,
          clients,
          shard(n, -1, clients),
          shard(n, n / 2, clients));
    }
    int hot = Math.min(keys, 400_000);
    System.out.println();
    System.out.println(
        "Skewed load ("
            + hot
            + " long-lived connections, 30% of them from 20 hot clients), "
            + "max/mean of live connections:");
    System.out.println();
    System.out.println("| algorithm | N | max/mean connections | moved when 1 removed |");
    System.out.println("|---|---:|---:|---:|");
    int[] skewed = clients(hot, 20);
    for (int n : new int[] {100, 1000}) {
      skewRow(
          "mh (M=65537)", n, skewed, mh(n, 65537, 0, -1, skewed), mh(n, 65537, 0, n / 2, skewed));
      skewRow(
          "mh bounded-load 125% (M=65537)",
          n, skewed, mh(n, 65537, 125, -1, skewed), mh(n, 65537, 125, n / 2, skewed));
      skewRow(
          "mh bounded-load 110% (M=65537)",
          n, skewed, mh(n, 65537, 110, -1, skewed), mh(n, 65537, 110, n / 2, skewed));
      skewRow("shard, 67 replicas", n, skewed, shard(n, -1, skewed), shard(n, n / 2, skewed));
      skewRow(
          "shard bounded-load 125%",
          n, skewed, boundedShard(n, -1, skewed, 125), boundedShard(n, n / 2, skewed, 125));
    }
  }

  private static double exactMh(int n, int table) {
    SchedService vs =
        new SchedService(Schedulers.create("mh", List.of(), new Schedulers.Options(table, 0)));
    for (DestSpec d : servers(n, -1)) vs.add(d);
    Map<SchedDest, Integer> slots = Schedulers.tableSlots(vs.scheduler());
    int max = slots.values().stream().mapToInt(Integer::intValue).max().orElse(0);
    return max / ((double) table / n);
  }

  private static void skewRow(String name, int n, int[] clients, String[] before, String[] after) {
    Map<String, Integer> load = new HashMap<>();
    for (String s : before) load.merge(s, 1, Integer::sum);
    int max = load.values().stream().mapToInt(Integer::intValue).max().orElse(0);
    long moved = 0;
    for (int i = 0; i < clients.length; i++) if (!before[i].equals(after[i])) moved++;
    System.out.printf(
        "| %s | %d | %.3f | %.3f%% |%n",
        name, n, max / ((double) clients.length / n), 100.0 * moved / clients.length);
  }

  /**
   * Random client addresses; with {@code hot > 0}, 30% of the keys come from {@code hot} fixed
   * clients.
   */
  private static int[] clients(int keys, int hot) {
    SplittableRandom r = new SplittableRandom(7);
    int[] hotClients = new int[Math.max(hot, 1)];
    for (int i = 0; i < hotClients.length; i++) hotClients[i] = r.nextInt();
    int[] c = new int[keys];
    for (int i = 0; i < keys; i++)
      c[i] = hot > 0 && r.nextInt(10) < 3 ? hotClients[r.nextInt(hot)] : r.nextInt();
    return c;
  }

  private static List<DestSpec> servers(int n, int removed) {
    java.util.ArrayList<DestSpec> l = new java.util.ArrayList<>();
    for (int i = 0; i < n; i++) {
      if (i != removed) l.add(DestSpec.of("10.1." + (i / 250) + "." + (i % 250 + 1), 80, 1));
    }
    return l;
  }

  /**
   * Server index (by address) each key goes to; bounded-load keys are opened as connections in
   * order.
   */
  private static String[] mh(int n, int table, int factor, int removed, int[] clients)
      throws Exception {
    KernelScheduler s = Schedulers.create("mh", List.of(), new Schedulers.Options(table, factor));
    SchedService vs = new SchedService(s);
    for (DestSpec d : servers(n, removed)) vs.add(d);
    String[] out = new String[clients.length];
    for (int i = 0; i < clients.length; i++) {
      int c = clients[i];
      InetAddress a =
          InetAddress.getByAddress(
              new byte[] {(byte) (c >>> 24), (byte) (c >>> 16), (byte) (c >>> 8), (byte) c});
      Flow f = Flow.fromClient(a, 0);
      SchedDest d = factor == 0 ? vs.pick(f) : Objects.requireNonNull(vs.open(f), ALL_UP).dest();
      out[i] = Objects.requireNonNull(d, ALL_UP).name();
    }
    return out;
  }

  private static String[] shard(int n, int removed, int[] clients) {
    ShardDirector sd = new ShardDirector("sim");
    for (DestSpec d : servers(n, removed)) sd.add(Member.of(Backend.named(d.name())));
    String[] out = new String[clients.length];
    for (int i = 0; i < clients.length; i++) {
      out[i] =
          Objects.requireNonNull(
                  sd.pick(Integer.toUnsignedLong(clients[i]), 0, ShardParams.DEFAULTS), ALL_UP)
              .name();
    }
    return out;
  }

  private static String[] boundedShard(int n, int removed, int[] clients, int factor) {
    ShardDirector sd = new ShardDirector("sim");
    for (DestSpec d : servers(n, removed)) sd.add(Member.of(Backend.named(d.name())));
    BoundedLoadDirector bl = new BoundedLoadDirector(sd, factor);
    String[] out = new String[clients.length];
    for (int i = 0; i < clients.length; i++) {
      out[i] =
          Objects.requireNonNull(bl.open(Request.ofKey(Integer.toUnsignedLong(clients[i]))), ALL_UP)
              .backend()
              .name();
    }
    return out;
  }

  private static void row(
      String name, int n, double exact, int[] clients, String[] before, String[] after) {
    int keys = clients.length;
    Map<String, Integer> load = new HashMap<>();
    for (String s : before) load.merge(s, 1, Integer::sum);
    int max = load.values().stream().mapToInt(Integer::intValue).max().orElse(0);
    double mean = (double) keys / n;
    long moved = 0;
    for (int i = 0; i < keys; i++) if (!before[i].equals(after[i])) moved++;
    System.out.printf(
        "| %s | %d | %s | %.4f | %.3f%% | %.3f%% |%n",
        name,
        n,
        Double.isNaN(exact) ? "–" : String.format("%.4f", exact),
        max / mean,
        100.0 * moved / keys,
        100.0 / n);
  }
}
