package io.fairway.director.sched;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * {@code ovf} (ip_vs_ovf.c): the highest-weight server whose active connections do not exceed its
 * weight — the weight is a connection budget, and traffic overflows to the next server once it is
 * spent.
 *
 * <p>Slow start: as in {@code fo}, a ramping winner is admitted on a fraction of its turns ({@link
 * SchedDest#admit}); a declined turn goes to the best server that is not ramping.
 */
final class WeightedOverflow extends ListScheduler {
  @Override
  public String name() {
    return "ovf";
  }

  @Override
  public @Nullable SchedDest pick(int clientFold, int clientPort, int destinationFold) {
    SchedDest h = null;
    SchedDest steady = null;
    for (SchedDest d : dests) {
      int w = d.weight();
      if (d.overloaded() || d.activeConns() > w || w == 0) continue;
      if (h == null || w > h.weight()) h = d;
      if (!d.ramping() && (steady == null || w > steady.weight())) steady = d;
    }
    // steady is one of the candidates h was chosen from, so h is set whenever steady is.
    return Objects.equals(h, steady) || steady == null || h == null || h.admit() ? h : steady;
  }
}
