package io.fairway.director.sched;

import org.jspecify.annotations.Nullable;

/**
 * {@code nq} (ip_vs_nq.c): the first idle server (no active connection) in list order; when none is
 * idle, the {@code sed} rule.
 *
 * <p>Slow start: a ramping server never takes the idle shortcut (it would get every connection
 * while it is idle, which is all of them at first); it competes by the sed rule with its ramped
 * {@link SchedDest#eweight}.
 */
final class NeverQueue extends ListScheduler {
  @Override
  public String name() {
    return "nq";
  }

  @Override
  public @Nullable SchedDest pick(int clientFold, int clientPort, int destinationFold) {
    SchedDest least = null;
    long loh = 0;
    for (SchedDest d : dests) {
      if (d.overloaded() || d.weight() == 0) continue;
      long doh = d.activeConns() + 1L;
      if (d.activeConns() == 0 && !d.ramping()) return d;
      if (least == null || loh * d.eweight() > doh * least.eweight()) {
        least = d;
        loh = doh;
      }
    }
    return least;
  }
}
