package io.fairway.proxy.l4;

import io.netty.channel.Channel;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Closes an established L4 connection that carried no data either way for the idle timeout.
 *
 * <p>Activity is what the two {@link TrafficMeter}s saw read: everything written to one side was
 * read from the other, so reads alone cover both directions, spliced or copied. One timer per
 * connection, re-armed for the remaining time when it fires early (rather than on every read).
 */
final class IdleWatch implements Runnable {
  private final Channel client;
  private final Channel backend;
  private final TrafficMeter clientMeter;
  private final TrafficMeter backendMeter;
  private final long timeoutNanos;
  private ScheduledFuture<?> timer;

  private IdleWatch(Channel client, TrafficMeter cm, Channel backend, TrafficMeter bm, long timeoutNanos) {
    this.client = client;
    this.backend = backend;
    this.clientMeter = cm;
    this.backendMeter = bm;
    this.timeoutNanos = timeoutNanos;
  }

  /** Starts watching; the timer goes away when the client channel closes. Call on the event loop. */
  static void start(Channel client, TrafficMeter cm, Channel backend, TrafficMeter bm, long timeoutNanos) {
    IdleWatch w = new IdleWatch(client, cm, backend, bm, timeoutNanos);
    w.arm(timeoutNanos);
    client.closeFuture().addListener(f -> w.timer.cancel(false));
  }

  private void arm(long delayNanos) {
    timer = client.eventLoop().schedule(this, delayNanos, TimeUnit.NANOSECONDS);
  }

  @Override
  public void run() {
    if (!client.isOpen()) {
      return;
    }
    long last = Math.max(clientMeter.lastActivity(), backendMeter.lastActivity());
    long left = timeoutNanos - (System.nanoTime() - last);
    if (left > 0) {
      arm(left);
    } else {
      client.close();
      backend.close();
    }
  }
}
