package io.fairway.proxy.table;

import io.fairway.director.sched.Connection;
import io.fairway.director.sched.SchedDest;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;

/**
 * Expires closed connections after the inactive period (the kernel keeps a closed connection for
 * its TCP state timeout; the schedulers count it as inactive until then).
 *
 * <p>The delay is the same for every connection, so one queue of one-second batches, swept
 * periodically, replaces a timer per connection. A batch holds, per destination, only how many
 * connections to expire: at ten thousand new connections a second, keeping each connection object
 * for a minute made every young collection copy 600,000 survivors (30 ms pauses and the p99 of
 * short connections with them). Connections with a persistence template are kept one by one, since
 * the template's release is per connection.
 *
 * <p>Expiry happens between the delay and one second after it.
 */
final class ConnectionExpiry {
  private static final long SECOND = 1_000_000_000L;

  private static final class Batch {
    final long second;
    // By identity: a model's destination objects, not equal destinations.
    final IdentityHashMap<SchedDest, int[]> counts = new IdentityHashMap<>();
    final List<Connection> single = new ArrayList<>(0);

    Batch(long second) {
      this.second = second;
    }
  }

  private final long delayNanos;
  private final ArrayDeque<Batch> batches = new ArrayDeque<>();

  ConnectionExpiry(long delayNanos) {
    this.delayNanos = delayNanos;
  }

  /** A closing connection: it expires after the delay. Any thread. */
  synchronized void expireLater(Connection c) {
    long second = Math.floorDiv(System.nanoTime() + delayNanos, SECOND) + 1; // never early
    Batch b = batches.peekLast();
    if (b == null || b.second != second) {
      b = new Batch(second);
      batches.addLast(b);
    }
    if (c.detachForBatchExpiry()) {
      b.counts.computeIfAbsent(c.dest(), d -> new int[1])[0]++;
    } else {
      b.single.add(c);
    }
  }

  /** Expires everything due; called periodically. */
  void sweep() {
    long now = Math.floorDiv(System.nanoTime(), SECOND);
    List<Batch> due = new ArrayList<>(2);
    synchronized (this) {
      Batch b;
      while ((b = batches.peekFirst()) != null && b.second <= now) {
        due.add(batches.pollFirst());
      }
    }
    for (Batch b : due) {
      b.counts.forEach((d, n) -> d.expireInactive(n[0]));
      b.single.forEach(Connection::expire);
    }
  }
}
