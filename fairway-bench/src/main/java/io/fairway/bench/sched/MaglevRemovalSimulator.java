package io.fairway.bench.sched;

import io.fairway.director.sched.DestSpec;
import io.fairway.director.sched.Flow;
import io.fairway.director.sched.KernelScheduler;
import io.fairway.director.sched.SchedService;
import io.fairway.director.sched.Schedulers;
import java.net.InetAddress;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * How many flows the kernel's {@code mh} (4,093 slots) moves beyond the removed server's when one
 * of five servers goes, over random server ports: the spread behind the bound that {@code
 * ScaleOutAgreementTest} (fairway-daemon) puts on it, whose servers sit on ephemeral ports of
 * 127.0.0.1 and whose 10,000 flows come from as many client addresses.
 *
 * <pre>
 * java -cp fairway-bench/target/benchmarks.jar io.fairway.bench.sched.MaglevRemovalSimulator 3000
 * </pre>
 */
public final class MaglevRemovalSimulator {
  private static final int SERVERS = 5;
  private static final int FLOWS = 10_000;

  private MaglevRemovalSimulator() {}

  public static void main(String[] args) throws Exception {
    int sets = args.length > 0 ? Integer.parseInt(args[0]) : 3000;
    SplittableRandom random = new SplittableRandom(1);
    int[] others = new int[sets];
    for (int t = 0; t < sets; t++) {
      int[] ports = distinctPorts(random);
      String[] before = pick(ports, -1);
      String[] after = pick(ports, 2);
      for (int i = 0; i < FLOWS; i++) {
        if (!before[i].equals(after[i]) && !before[i].equals("b2")) {
          others[t]++;
        }
      }
    }
    Arrays.sort(others);
    System.out.printf(
        "%d port sets, flows moved beyond the removed server's (of %d): median %d, p90 %d, p99 %d,"
            + " max %d; at least 2 %%: %d sets, at least 7 %%: %d%n",
        sets,
        FLOWS,
        others[sets / 2],
        others[sets * 9 / 10],
        others[sets * 99 / 100],
        others[sets - 1],
        Arrays.stream(others).filter(o -> o >= FLOWS / 50).count(),
        Arrays.stream(others).filter(o -> o >= FLOWS * 7 / 100).count());
  }

  private static int[] distinctPorts(SplittableRandom random) {
    Set<Integer> seen = new HashSet<>();
    int[] ports = new int[SERVERS];
    for (int i = 0; i < SERVERS; i++) {
      do {
        ports[i] = 32768 + random.nextInt(28232); // Linux's default ephemeral range
      } while (!seen.add(ports[i]));
    }
    return ports;
  }

  private static String[] pick(int[] ports, int removed) throws Exception {
    KernelScheduler s = Schedulers.create("mh", List.of(), new Schedulers.Options(4093, 0));
    SchedService vs = new SchedService(s);
    for (int i = 0; i < SERVERS; i++) {
      if (i != removed) {
        vs.add(DestSpec.of("127.0.0.1", ports[i], 1).withName("b" + i));
      }
    }
    String[] out = new String[FLOWS];
    for (int c = 0; c < FLOWS; c++) {
      InetAddress a =
          InetAddress.getByAddress(
              new byte[] {127, 0, (byte) (10 + c / 250), (byte) (c % 250 + 1)});
      out[c] =
          Objects.requireNonNull(
                  vs.pick(Flow.fromClient(a, 0)),
                  "every server is up with weight 1, so one is picked")
              .name();
    }
    return out;
  }
}
