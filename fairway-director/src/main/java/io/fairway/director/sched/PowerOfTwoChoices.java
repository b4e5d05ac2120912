package io.fairway.director.sched;

import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.IntUnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * {@code twos}: power-of-two-choices least connections, HAProxy 3.3's default balance algorithm.
 * Two servers are drawn at random in proportion to their weights and the one with the lower
 * weighted overhead (wlc's measure) wins. Unlike lc it needs no global scan, and unlike random it
 * avoids the unlucky pile-up; it is the usual choice when several Fairway nodes balance the same
 * pool without sharing counts. Userspace data plane only (Linux 6.1's IPVS has no such scheduler).
 */
final class PowerOfTwoChoices implements KernelScheduler {
  /** Random int in [0, bound); replaceable for deterministic tests. */
  private final IntUnaryOperator random;

  /**
   * Servers and their running weight sums, published together so a pick never pairs one with the
   * other's size.
   */
  private static final class Table {
    final SchedDest[] dests;
    final long[] cumulative;

    Table(SchedDest[] dests, long[] cumulative) {
      this.dests = dests;
      this.cumulative = cumulative;
    }
  }

  private volatile Table table = new Table(new SchedDest[0], new long[0]);

  PowerOfTwoChoices() {
    this(bound -> ThreadLocalRandom.current().nextInt(bound));
  }

  PowerOfTwoChoices(IntUnaryOperator random) {
    this.random = random;
  }

  @Override
  public String name() {
    return "twos";
  }

  @Override
  public void update(List<SchedDest> kernelOrder) {
    SchedDest[] d = kernelOrder.toArray(new SchedDest[0]);
    long[] c = new long[d.length];
    long sum = 0;
    for (int i = 0; i < d.length; i++) {
      sum += Math.max(d[i].eweight(), 0);
      c[i] = sum;
    }
    table = new Table(d, c);
  }

  @Override
  public @Nullable SchedDest pick(int clientFold, int clientPort, int destinationFold) {
    Table t = table;
    SchedDest[] d = t.dests;
    long[] c = t.cumulative;
    if (d.length == 0 || c[c.length - 1] == 0) return null;
    SchedDest a = draw(d, c);
    SchedDest b = draw(d, c);
    // An overloaded or since-quiesced draw loses to anything usable; if both are unusable, fall
    // back to wlc.
    boolean aOk = a != null && !a.overloaded() && a.weight() > 0;
    boolean bOk = b != null && !b.overloaded() && b.weight() > 0;
    if (!aOk && !bOk) return WeightedLeastConnection.pickWeighted(d, false);
    if (!aOk) return b;
    if (!bOk) return a;
    return a.connOverhead() * b.eweight() <= b.connOverhead() * a.eweight() ? a : b;
  }

  private SchedDest draw(SchedDest[] d, long[] c) {
    long total = c[c.length - 1];
    long r =
        total <= Integer.MAX_VALUE
            ? random.applyAsInt((int) total)
            : ThreadLocalRandom.current().nextLong(total);
    int lo = 0;
    int hi = c.length - 1;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (c[mid] > r) hi = mid;
      else lo = mid + 1;
    }
    return d[lo];
  }
}
