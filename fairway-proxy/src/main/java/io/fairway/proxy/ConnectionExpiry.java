package io.fairway.proxy;

import io.fairway.director.sched.Connection;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Expires closed connections after the inactive period, in the order they closed.
 *
 * <p>The delay is the same for every connection, so deadlines arrive in FIFO order and one queue
 * swept periodically replaces a timer per connection — at tens of thousands of connections a second
 * the timers would cost more than the proxying.
 */
final class ConnectionExpiry {
  private record Pending(long deadlineNanos, Connection connection) {}

  private final long delayNanos;
  private final ConcurrentLinkedQueue<Pending> queue = new ConcurrentLinkedQueue<>();

  ConnectionExpiry(long delayNanos) {
    this.delayNanos = delayNanos;
  }

  void expireLater(Connection c) {
    queue.add(new Pending(System.nanoTime() + delayNanos, c));
  }

  /** Expires everything due; called periodically. */
  void sweep() {
    long now = System.nanoTime();
    Pending p;
    while ((p = queue.peek()) != null && now - p.deadlineNanos >= 0) {
      queue.poll();
      p.connection.expire();
    }
  }
}
