package io.fairway.director.sched;

import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * {@code wrr} (ip_vs_wrr.c): interleaved weighted round robin. Each pass admits servers whose
 * weight is at least the current weight {@code cw}; {@code cw} steps down by the gcd of the weights
 * from the maximum to 1. The maximum is lowered by {@code gcd - 1} so the last pass is always
 * {@code cw = 1}, as the kernel does to catch weights that changed under it.
 *
 * <p>Slow start: the passes compare {@link SchedDest#eweight}, the weight scaled by 100 while
 * anybody ramps and by the ramp's progress for the ramping server; a common factor changes neither
 * the gcd-reduced passes nor their order.
 */
final class WeightedRoundRobin implements KernelScheduler {
  private SchedDest[] dests = new SchedDest[0];
  private int cl = -1; // current dest index, -1 = list head
  private int cw;
  private int mw;
  private int di = 1;

  @Override
  public String name() {
    return "wrr";
  }

  @Override
  public synchronized void update(List<SchedDest> kernelOrder) {
    dests = kernelOrder.toArray(new SchedDest[0]);
    cl = -1;
    int g = 0;
    int max = 0;
    for (SchedDest d : dests) {
      int w = d.eweight();
      if (w > 0) g = g > 0 ? gcd(w, g) : w;
      if (w > max) max = w;
    }
    changed(g, max);
  }

  /**
   * A batch: {@code cw} goes through the gcd and maximum weight after each change, as the kernel's
   * {@code dest_changed} hook saw them, over a count of the weights rewound from the list the batch
   * ends with. The weights are the effective ones ({@link SchedDest#eweight}, as {@link
   * #update(List)} compares), which the changes carry too. The final {@link #update(List)} repeats
   * the last step, which changes nothing (the step is idempotent: the maximum is a multiple of the
   * gcd).
   */
  @Override
  public synchronized void update(List<SchedDest> kernelOrder, List<MemberChange> changes) {
    java.util.TreeMap<Integer, Integer> weights = new java.util.TreeMap<>();
    for (SchedDest d : kernelOrder) weights.merge(d.eweight(), 1, Integer::sum);
    for (int i = changes.size() - 1; i >= 0; i--) {
      MemberChange c = changes.get(i);
      if (c.kind() != MemberChange.Kind.DELETE) count(weights, c.weightAfter(), -1);
      if (c.kind() != MemberChange.Kind.ADD) count(weights, c.weightBefore(), 1);
    }
    for (MemberChange c : changes) {
      if (c.kind() != MemberChange.Kind.ADD) count(weights, c.weightBefore(), -1);
      if (c.kind() != MemberChange.Kind.DELETE) count(weights, c.weightAfter(), 1);
      int g = 0;
      for (int w : weights.keySet()) {
        if (w > 0) g = g > 0 ? gcd(w, g) : w;
        if (g == 1) break; // the usual case with mixed weights: no need to look further
      }
      changed(g, weights.isEmpty() ? 0 : Math.max(weights.lastKey(), 0));
    }
    update(kernelOrder);
  }

  private static void count(Map<Integer, Integer> weights, int w, int delta) {
    weights.merge(w, delta, (a, b) -> a + b == 0 ? null : a + b);
  }

  /** {@code ip_vs_wrr_dest_changed} on the new gcd and maximum weight. */
  private void changed(int g, int max) {
    di = g == 0 ? 1 : g;
    mw = max - (di - 1);
    if (cw > mw || cw == 0) {
      cw = mw;
    } else if (di > 1) {
      cw = (cw / di) * di + 1;
    }
  }

  static int gcd(int a, int b) {
    while (b != 0) {
      int t = a % b;
      a = b;
      b = t;
    }
    return a;
  }

  @Override
  public synchronized @Nullable SchedDest pick(
      int clientFold, int clientPort, int destinationFold) {
    SchedDest[] d = dests;
    int n = d.length;
    int dest = cl;
    if (mw == 0) return null;
    int last = dest;
    int stop = Integer.MIN_VALUE;
    boolean lastPass = false;
    boolean restarted = false;
    while (true) {
      for (int i = dest + 1; i < n; i++) {
        SchedDest x = d[i];
        if (!x.overloaded() && x.eweight() >= cw) {
          cl = i;
          return x;
        }
        if (i == stop) {
          cl = i;
          return null;
        }
      }
      dest = -1;
      cw -= di;
      if (cw <= 0) {
        cw = mw;
        if (lastPass || last == -1) {
          cl = -1;
          return null;
        }
        restarted = true;
      }
      lastPass = cw <= di;
      if (lastPass && restarted && last != -1) {
        stop = last;
      }
    }
  }
}
