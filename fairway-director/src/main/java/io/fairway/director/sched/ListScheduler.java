package io.fairway.director.sched;

import java.util.List;

/**
 * Base of the stateless schedulers that scan the list on every pick: they only need an immutable
 * copy of it.
 */
abstract class ListScheduler implements KernelScheduler {
  protected volatile SchedDest[] dests = new SchedDest[0];

  @Override
  public void update(List<SchedDest> kernelOrder) {
    dests = kernelOrder.toArray(new SchedDest[0]);
  }
}
