package io.fairway.proxy.table;

/**
 * One service's queue ({@link SlotQueue}) as metrics read it: who waits now, and what became of
 * those who waited.
 *
 * @param waiting connections (L4) or requests (HTTP) waiting for a slot now
 * @param queued how many ever waited (a first try that found every server full, or queued behind
 *     others)
 * @param timedOut of those, how many got no slot within the connect timeout and were refused
 * @param refusedFull how many found the queue itself full and were refused at once
 */
public record QueueStats(int waiting, long queued, long timedOut, long refusedFull) {
  public static final QueueStats NONE = new QueueStats(0, 0, 0, 0);

  /** The sum of two services' queues (a virtual_server_group's members). */
  public QueueStats plus(QueueStats o) {
    return new QueueStats(
        waiting + o.waiting, queued + o.queued, timedOut + o.timedOut, refusedFull + o.refusedFull);
  }
}
