package io.fairway.vrrp.state;

/** What the driver must do after an event, in order. */
public sealed interface Action {
  /** The instance the action belongs to. */
  Router router();

  /** Send one advertisement with this priority (0 when handing over). */
  record SendAdvert(Router router, int priority) implements Action {}

  /**
   * The instance changed state. Entering MASTER: add the virtual addresses, then announce them
   * (gratuitous ARP / neighbour advertisements) and run notify scripts; leaving MASTER: remove
   * them.
   */
  record Transition(Router router, State from, State to) implements Action {}
}
