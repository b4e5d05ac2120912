package io.fairway.director.sched;

import org.jspecify.annotations.Nullable;

/**
 * {@code wlc} (ip_vs_wlc.c): the lowest overhead/weight, compared by cross-multiplication. The
 * first usable server seeds the search; later weight-0 servers are visited but can never win the
 * comparison.
 *
 * <p>Slow start: the comparison uses {@link SchedDest#eweight}, so a ramping server's overhead
 * counts divided by the ramp's progress.
 */
final class WeightedLeastConnection extends ListScheduler {
  @Override
  public String name() {
    return "wlc";
  }

  @Override
  public @Nullable SchedDest pick(int clientFold, int clientPort, int destinationFold) {
    return pickWeighted(dests, false);
  }

  /** Shared by wlc and sed: they differ only in how the overhead is counted. */
  static @Nullable SchedDest pickWeighted(SchedDest[] dests, boolean sed) {
    int n = dests.length;
    int i = 0;
    SchedDest least = null;
    for (; i < n; i++) {
      SchedDest d = dests[i];
      if (!d.overloaded() && d.eweight() > 0) {
        least = d;
        break;
      }
    }
    if (least == null) return null;
    long loh = overhead(least, sed);
    for (i++; i < n; i++) {
      SchedDest d = dests[i];
      if (d.overloaded()) continue;
      long doh = overhead(d, sed);
      if (loh * d.eweight() > doh * least.eweight()) {
        least = d;
        loh = doh;
      }
    }
    return least;
  }

  private static long overhead(SchedDest d, boolean sed) {
    return sed ? d.activeConns() + 1L : d.connOverhead();
  }
}
