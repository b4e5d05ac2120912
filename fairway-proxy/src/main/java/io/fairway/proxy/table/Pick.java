package io.fairway.proxy.table;

/**
 * What {@link ProxyService#schedule} decided for a new connection (L4) or request (HTTP): a {@link
 * Lease} on a server, {@link Queued} behind the service's {@link SlotQueue}, or {@link None} and
 * why.
 *
 * <p>A lease is a pick itself, so the usual answer costs nothing beyond the lease.
 */
public sealed interface Pick permits Lease, Pick.Queued, Pick.None {

  /** It waits for a slot; its {@link SlotWaiter} is called back on its event loop. */
  enum Queued implements Pick {
    QUEUED
  }

  /** No server, and why: the frontend refuses (L4: closes, HTTP: 503 or 502). */
  enum None implements Pick {
    /**
     * No server can take it and waiting would not change that: there is none, or every one is
     * drained (weight 0) or removed. A waiter whose servers went that way while it waited is told
     * this too.
     */
    NO_SERVER,

    /**
     * Every server is full ({@code uthreshold} or {@code max_conns}) and the queue is full as well.
     */
    QUEUE_FULL,

    /**
     * A retry (the servers it went to failed it) found no other. Retries never queue: what such a
     * client is answered for is the failure (HTTP: 502), not the servers' load.
     */
    ALL_TRIED
  }
}
