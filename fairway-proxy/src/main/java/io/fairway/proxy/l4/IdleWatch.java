package io.fairway.proxy.l4;

import io.netty.channel.Channel;
import io.netty.util.AttributeKey;
import java.util.Objects;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Closes an established L4 connection that carried no data either way for the idle timeout.
 *
 * <p>Activity is what the two {@link TrafficMeter}s saw read: everything written to one side was
 * read from the other, so reads alone cover both directions, spliced or copied. One timer per
 * connection, re-armed for the remaining time when it fires early (rather than on every read).
 *
 * <p>A reload that changes the timeout ({@code lvs_timeouts tcp}, {@code proxy_timeouts idle})
 * reaches established connections as IPVS does it: the kernel gives a connection the current
 * timeout at each packet ({@code set_tcp_state}, then {@code ip_vs_conn_put} re-arms the timer), so
 * activity before the reload keeps the deadline it set and activity after it gets the new timeout.
 */
public final class IdleWatch implements Runnable {
  private static final AttributeKey<IdleWatch> WATCH =
      AttributeKey.valueOf(IdleWatch.class, "watch");

  private final Channel client;
  private final Channel backend;
  private final TrafficMeter clientMeter;
  private final TrafficMeter backendMeter;

  /** What activity seen from now on is given. */
  private long timeoutNanos;

  /** The last activity accounted, and the deadline it set (that activity plus the timeout then). */
  private long seen;

  private long deadline;
  private @Nullable ScheduledFuture<?> timer;

  /** The timeout closed the connection (the access log says so). */
  private boolean fired;

  private IdleWatch(
      Channel client, TrafficMeter cm, Channel backend, TrafficMeter bm, long timeoutNanos) {
    this.client = client;
    this.backend = backend;
    this.clientMeter = cm;
    this.backendMeter = bm;
    this.timeoutNanos = timeoutNanos;
    this.seen = System.nanoTime();
    this.deadline = seen + timeoutNanos;
  }

  /**
   * Starts watching; the timer goes away when the client channel closes. Call on the event loop.
   */
  static void start(
      Channel client, TrafficMeter cm, Channel backend, TrafficMeter bm, long timeoutNanos) {
    IdleWatch w = new IdleWatch(client, cm, backend, bm, timeoutNanos);
    client.attr(WATCH).set(w);
    w.arm(timeoutNanos);
    client
        .closeFuture()
        .addListener(f -> Objects.requireNonNull(w.timer, "armed above").cancel(false));
  }

  /**
   * The service's idle timeout is now {@code timeoutNanos}: for the connection's activity from now
   * on, if {@code client} is a watched L4 connection (other channels are left alone). Runs on the
   * channel's event loop, after a watch that is being started there.
   */
  public static void retime(Channel client, long timeoutNanos) {
    client
        .eventLoop()
        .execute(
            () -> {
              IdleWatch w = client.attr(WATCH).get();
              if (w != null && client.isOpen()) {
                w.account();
                w.timeoutNanos = timeoutNanos;
                Objects.requireNonNull(w.timer, "armed by start").cancel(false);
                w.check();
              }
            });
  }

  /** Whether {@code client}'s connection was closed by its idle timeout. On its event loop. */
  static boolean timedOut(Channel client) {
    IdleWatch w = client.attr(WATCH).get();
    return w != null && w.fired;
  }

  private void arm(long delayNanos) {
    timer = client.eventLoop().schedule(this, delayNanos, TimeUnit.NANOSECONDS);
  }

  /** Activity since the last look sets a new deadline with the timeout in force. */
  private void account() {
    long last = Math.max(clientMeter.lastActivity(), backendMeter.lastActivity());
    if (last - seen > 0) {
      seen = last;
      deadline = last + timeoutNanos;
    }
  }

  private void check() {
    long left = deadline - System.nanoTime();
    if (left > 0) {
      // Never later than one timeout from now: after a reload shortened it, activity from now on
      // sets an earlier deadline than the one a connection idle since before the reload keeps.
      arm(Math.min(left, timeoutNanos));
    } else {
      fired = true;
      client.close();
      backend.close();
    }
  }

  @Override
  public void run() {
    if (!client.isOpen()) {
      return;
    }
    account();
    check();
  }
}
