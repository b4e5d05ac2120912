package io.fairway.director.sched;

import org.jspecify.annotations.Nullable;

/**
 * {@code lc} (ip_vs_lc.c): the server with the lowest overhead, where an active connection costs
 * 256 inactive ones. Weight only matters as "zero means quiesced"; the first of equals in list
 * order wins.
 *
 * <p>Slow start: a ramping server's overhead counts divided by the ramp's progress {@code f}, so it
 * holds about {@code f} times the connections of the others; compared by cross-multiplying with
 * {@link SchedDest#rampUnits}, which is the same for every server (100) when nobody ramps, so the
 * kernel's comparison is unchanged then.
 */
final class LeastConnection extends ListScheduler {
  @Override
  public String name() {
    return "lc";
  }

  @Override
  public @Nullable SchedDest pick(int clientFold, int clientPort, int destinationFold) {
    SchedDest least = null;
    long loh = 0;
    int lu = 0;
    for (SchedDest d : dests) {
      if (d.overloaded() || d.weight() == 0) continue;
      long doh = d.connOverhead();
      int du = d.rampUnits();
      if (least == null || doh * lu < loh * du) {
        least = d;
        loh = doh;
        lu = du;
      }
    }
    return least;
  }
}
