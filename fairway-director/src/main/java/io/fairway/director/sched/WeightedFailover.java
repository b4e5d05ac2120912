package io.fairway.director.sched;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * {@code fo} (ip_vs_fo.c): everything to the usable server with the highest weight; the first of
 * equals in list order. Operators use weights as priorities: the backup takes over only when the
 * primary is quiesced or full.
 *
 * <p>Slow start: weights are priorities here, so a ramp does not lower the priority; a ramping
 * winner is admitted on a fraction of its turns ({@link SchedDest#admit}) and a declined turn goes
 * to the best server that is not ramping.
 */
final class WeightedFailover extends ListScheduler {
  @Override
  public String name() {
    return "fo";
  }

  @Override
  public @Nullable SchedDest pick(int clientFold, int clientPort, int destinationFold) {
    SchedDest best = null;
    int hw = 0;
    SchedDest steady = null;
    int hs = 0;
    for (SchedDest d : dests) {
      int w = d.weight();
      if (d.overloaded()) continue;
      if (w > hw) {
        best = d;
        hw = w;
      }
      if (w > hs && !d.ramping()) {
        steady = d;
        hs = w;
      }
    }
    // steady is one of the candidates best was chosen from, so best is set whenever steady is.
    return Objects.equals(best, steady) || steady == null || best == null || best.admit()
        ? best
        : steady;
  }
}
