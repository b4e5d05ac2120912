package io.fairway.director.sched;

import java.util.List;

/**
 * Base of the stateless schedulers that scan the list on every pick: they only need an immutable
 * copy of it.
 */
abstract class ListScheduler implements KernelScheduler {
  protected volatile Dest[] dests = new Dest[0];

  @Override
  public void update(List<Dest> kernelOrder) {
    dests = kernelOrder.toArray(new Dest[0]);
  }
}
