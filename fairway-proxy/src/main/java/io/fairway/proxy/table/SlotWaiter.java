package io.fairway.proxy.table;

/**
 * A connection (L4) or request (HTTP) that {@link ProxyService#schedule} may queue, as the queue
 * calls it back: on its own event loop, when a slot may have freed or its wait is over. The
 * frontend does its protocol's part here; whether to go on waiting is the table's.
 */
public interface SlotWaiter {
  /**
   * Whether it no longer wants a server (its client went away, or its request ended otherwise):
   * asked first at each turn, and a waiter that is gone leaves the queue without a pick.
   */
  boolean gone();

  /**
   * Its turn: a {@link Lease} on a server that has room now, or {@link Pick.None#NO_SERVER} when
   * its servers are gone (removed, drained) rather than full and nothing will free by waiting.
   * Called at most once, and then never {@link #timedOut}.
   */
  void resume(Pick pick);

  /**
   * No slot within its wait. Called at most once, and then never {@link #resume}; also when it went
   * away meanwhile, if no turn came to ask {@link #gone}.
   */
  void timedOut();
}
