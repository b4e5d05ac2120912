package io.fairway.director.sched;

import org.jspecify.annotations.Nullable;

/**
 * {@code sed} (ip_vs_sed.c): the lowest (active + 1) / weight — the delay a new connection would
 * expect. Inactive connections are ignored.
 */
final class ShortestExpectedDelay extends ListScheduler {
  @Override
  public String name() {
    return "sed";
  }

  @Override
  public @Nullable SchedDest pick(int clientFold, int clientPort, int destinationFold) {
    return WeightedLeastConnection.pickWeighted(dests, true);
  }
}
