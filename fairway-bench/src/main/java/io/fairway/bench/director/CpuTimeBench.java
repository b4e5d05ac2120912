package io.fairway.bench.director;

import io.fairway.director.AbstractDirector;
import io.fairway.director.Backend;
import io.fairway.director.Request;
import io.fairway.director.varnish.ShardDirector;
import io.fairway.director.varnish.ShardParams;
import io.fairway.director.varnish.ShardRing;
import io.fairway.director.varnish.VarnishHash;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CyclicBarrier;
import org.jspecify.annotations.Nullable;

/**
 * The same measurements as the JMH benchmarks, in <em>thread CPU time</em> and allocated bytes per
 * operation ({@code com.sun.management.ThreadMXBean}). On a shared, oversubscribed machine
 * wall-clock JMH scores mostly measure the wait for a core; CPU time does not. It is a companion to
 * JMH, not a replacement: run JMH on a quiet machine for the official table.
 *
 * <p>Run: {@code java -cp fairway-bench/target/benchmarks.jar
 * io.fairway.bench.director.CpuTimeBench}
 */
public final class CpuTimeBench {

  private static final com.sun.management.ThreadMXBean MX =
      (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

  // A blackhole: written so the JIT cannot drop the measured work, and never read on purpose.
  @SuppressWarnings("UnusedVariable")
  private static volatile @Nullable Object sink;

  private CpuTimeBench() {}

  /** One measured result: CPU nanoseconds and bytes allocated per operation. */
  record Result(double nsPerOp, double bytesPerOp) {}

  interface Op {
    @Nullable Object run(int i);
  }

  /** Median of 5 rounds of {@code n} operations, after warming up. */
  static Result measure(Op op, int n) {
    for (int i = 0; i < n; i++) {
      sink = op.run(i);
    }
    double[] ns = new double[5];
    double[] bytes = new double[5];
    long tid = Thread.currentThread().getId();
    for (int r = 0; r < 5; r++) {
      long b0 = MX.getThreadAllocatedBytes(tid);
      long c0 = MX.getCurrentThreadCpuTime();
      Object last = null;
      for (int i = 0; i < n; i++) {
        last = op.run(i);
      }
      long c1 = MX.getCurrentThreadCpuTime();
      long b1 = MX.getThreadAllocatedBytes(tid);
      sink = last;
      ns[r] = (c1 - c0) / (double) n;
      bytes[r] = (b1 - b0) / (double) n;
    }
    Arrays.sort(ns);
    Arrays.sort(bytes);
    return new Result(ns[2], bytes[2]);
  }

  /** Two threads picking from the same director at once; CPU ns per pick per thread. */
  static double measureTwoThreads(AbstractDirector<?> d, Request[] reqs, int n) throws Exception {
    CyclicBarrier start = new CyclicBarrier(2);
    double[] out = new double[2];
    List<Thread> ts = new ArrayList<>();
    for (int t = 0; t < 2; t++) {
      final int id = t;
      Thread th =
          new Thread(
              () -> {
                try {
                  start.await();
                  out[id] = measure(i -> d.pick(reqs[(i + id * 977) & 4095]), n).nsPerOp();
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
              });
      th.start();
      ts.add(th);
    }
    for (Thread th : ts) {
      th.join();
    }
    return (out[0] + out[1]) / 2;
  }

  public static void main(String[] args) throws Exception {
    long[] keys = Fixtures.keys();
    Request[] reqs = new Request[keys.length];
    for (int i = 0; i < keys.length; i++) {
      reqs[i] = Request.ofKey(keys[i]);
    }
    int n = 2_000_000;
    directors(reqs, n);
    ShardDirector shard = shardLookup(keys, n);
    hashing(n);
    reconfigure();
    Backend b = shard.pick(Request.ofKey(1));
    System.out.println("# (sanity) key 1 -> " + b);
  }

  /** Each director at 10, 100 and 1,000 members, on one thread and on two at once. */
  private static void directors(Request[] reqs, int n) throws Exception {
    System.out.println(
        "# thread CPU time per operation (median of 5 x " + n + "), allocated bytes per operation");
    System.out.printf(
        Locale.ROOT,
        "%-12s %8s %14s %10s %14s%n",
        "director",
        "members",
        "1 thread ns",
        "B/op",
        "2 threads ns");
    for (String kind : List.of("round_robin", "fallback", "random", "hash", "shard")) {
      for (int members : new int[] {10, 100, 1000}) {
        AbstractDirector<?> d = Fixtures.director(kind, members);
        Result one = measure(i -> d.pick(reqs[i & 4095]), n);
        double two = measureTwoThreads(d, reqs, n);
        System.out.printf(
            Locale.ROOT,
            "%-12s %8d %14.1f %10.3f %14.1f%n",
            kind,
            members,
            one.nsPerOp(),
            one.bytesPerOp(),
            two);
      }
    }
  }

  /** The shard ring's lookup against a bare binary search over the same points. */
  private static ShardDirector shardLookup(long[] keys, int n) {
    ShardDirector shard = new ShardDirector("d");
    shard.replaceAll(Fixtures.unitMembers(1000));
    ShardRing ring = shard.state().ring();
    int[] points = new int[ring.size()];
    for (int p = 0; p < points.length; p++) {
      points[p] = (int) (ring.point(p) ^ 0x8000_0000L);
    }
    int[] biased = new int[keys.length];
    for (int k = 0; k < keys.length; k++) {
      biased[k] = (int) (keys[k] ^ 0x8000_0000L);
    }
    Result bare = measure(i -> Arrays.binarySearch(points, biased[i & 4095]), n);
    Result lookup = measure(i -> ring.lookup(keys[i & 4095]), n);
    Result pick = measure(i -> shard.pick(keys[i & 4095], 0, ShardParams.DEFAULTS), n);
    System.out.println();
    System.out.printf(
        Locale.ROOT, "# shard at 1,000 members x 67 replicas (%d points)%n", ring.size());
    System.out.printf(Locale.ROOT, "Arrays.binarySearch      %8.1f ns%n", bare.nsPerOp());
    System.out.printf(
        Locale.ROOT,
        "ShardRing.lookup         %8.1f ns  (%.2fx)%n",
        lookup.nsPerOp(),
        lookup.nsPerOp() / bare.nsPerOp());
    System.out.printf(
        Locale.ROOT,
        "ShardDirector.pick       %8.1f ns  (%.2fx)  %.3f B/op%n",
        pick.nsPerOp(),
        pick.nsPerOp() / bare.nsPerOp(),
        pick.bytesPerOp());
    return shard;
  }

  private static void hashing(int n) {
    System.out.println();
    System.out.println("# key hashing (VRT_HashStrands32)");
    for (String k :
        List.of(
            "/static/img/logo.png",
            "/api/v2/customers/8f14e45fceea167a5a36dedd4bea2543/orders?page=3&limit=50")) {
      Result h = measure(i -> VarnishHash.hash32(k), n / 4);
      System.out.printf(
          Locale.ROOT,
          "%3d-byte key             %8.1f ns  %.3f B/op%n",
          k.length(),
          h.nsPerOp(),
          h.bytesPerOp());
    }
  }

  /** Building, changing and flipping the health of a 1,000-member shard. */
  private static void reconfigure() {
    System.out.println();
    System.out.println("# shard reconfigure, 1,000 members x 67 replicas");
    var all = Fixtures.unitMembers(1000);
    Result cold =
        measure(
            i -> {
              ShardDirector c = new ShardDirector("cold");
              c.replaceAll(all);
              return c;
            },
            10);
    ShardDirector live = new ShardDirector("live");
    live.replaceAll(all.subList(0, 999));
    boolean[] present = {false};
    Result change =
        measure(
            i -> {
              if (present[0]) {
                live.remove(all.get(999).name());
              } else {
                live.add(all.get(999));
              }
              present[0] = !present[0];
              return live;
            },
            20);
    boolean[] up = {true};
    Result flip =
        measure(
            i -> {
              up[0] = !up[0];
              live.setHealthy("backend-7", up[0]);
              return live;
            },
            200);
    System.out.printf(
        Locale.ROOT, "cold build (every point hashed)   %8.2f ms%n", cold.nsPerOp() / 1e6);
    System.out.printf(
        Locale.ROOT, "add or remove one member          %8.2f ms%n", change.nsPerOp() / 1e6);
    System.out.printf(
        Locale.ROOT, "health flip (ring reused)         %8.3f ms%n", flip.nsPerOp() / 1e6);
  }
}
