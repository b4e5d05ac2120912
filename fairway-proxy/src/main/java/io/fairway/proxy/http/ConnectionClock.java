package io.fairway.proxy.http;

import io.fairway.proxy.ServiceTimeouts;
import io.fairway.proxy.table.ProxyService;
import io.netty.channel.Channel;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The timeouts of one HTTP/1.1 client connection: the idle (or tunnel) timeout, the time a request
 * head has to arrive (the keep-alive timeout between requests), and the exchange's own deadlines,
 * all checked by one periodic tick.
 *
 * <p>One periodic check per connection instead of a timer per request: arming and cancelling two
 * timers for every request costs more than this at keep-alive request rates. Apart from {@link
 * HttpFrontend} because it is the connection's one thing that runs on a schedule rather than on a
 * channel event.
 */
final class ConnectionClock {
  private final HttpFrontend frontend;
  private final ProxyService vs;

  /** This connection's timeouts: the service's as of the accept. */
  private final ServiceTimeouts timeouts;

  /** The request head must be complete by then (System.nanoTime); 0 = none. */
  private long headerDeadline;

  /** Between requests of a kept-alive connection: headerDeadline is the keep-alive timeout. */
  private boolean keepAliveIdle;

  private @Nullable ScheduledFuture<?> ticker;

  /**
   * Set by {@link HttpFrontend.ReadMarker} when bytes arrive; tells a slow client from an idle
   * keep-alive one.
   */
  private boolean sawBytes;

  /**
   * Something was read from the client or the backend since the last tick. The ticker turns this
   * into {@link #lastActivity} for the idle timeout: cheaper than an IdleStateHandler, which reads
   * the clock on every read and allocates a promise for every write it watches.
   */
  private boolean active;

  private long lastActivity;

  /**
   * The service's idle and tunnel timeouts as of {@link #lastActivity}: a reload that changes them
   * reaches this connection with its next byte, as IPVS gives a connection the current timeout at
   * each packet; until then the deadline it had stands.
   */
  private ServiceTimeouts idleTimeouts;

  ConnectionClock(HttpFrontend frontend, ProxyService vs, ServiceTimeouts timeouts) {
    this.frontend = frontend;
    this.vs = vs;
    this.timeouts = timeouts;
    this.idleTimeouts = timeouts;
  }

  /** The connection is open: the first request head has {@code request_head} from now. */
  void start(Channel client) {
    armHeaderTimer();
    lastActivity = System.nanoTime();
    long period = Math.max(10, Math.min(1000, timeouts.shortestHttpMillis() / 4));
    ticker =
        client.eventLoop().scheduleAtFixedRate(this::tick, period, period, TimeUnit.MILLISECONDS);
  }

  /** The connection closed: nothing more to check. */
  void stop() {
    headerDeadline = 0;
    cancelTicker();
  }

  void cancelTicker() {
    if (ticker != null) {
      ticker.cancel(false);
    }
  }

  /** Bytes arrived (before the decoder sees them): on a kept-alive connection, a new request. */
  void bytesArrived() {
    if (!sawBytes && keepAliveIdle) {
      nextRequestStarted();
    }
    sawBytes = true;
    active = true;
  }

  /** Whether any byte of the next request arrived. */
  boolean sawBytes() {
    return sawBytes;
  }

  /** The backend sent something: the connection is not idle. */
  void activity() {
    active = true;
  }

  /** A request head arrived: the head timeout no longer runs. */
  void headArrived() {
    headerDeadline = 0;
    keepAliveIdle = false;
  }

  /** A head was refused: it no longer has a timeout either. */
  void headRefused() {
    headerDeadline = 0;
  }

  /** Every request is answered: the next one has the keep-alive timeout to begin. */
  void awaitNextRequest() {
    sawBytes = false;
    keepAliveIdle = true;
    headerDeadline = System.nanoTime() + timeouts.keepAlive().toNanos();
  }

  private void armHeaderTimer() {
    headerDeadline = System.nanoTime() + timeouts.requestHead().toNanos();
  }

  /** The first byte of the next request on a kept-alive connection: its head has requestHead. */
  private void nextRequestStarted() {
    keepAliveIdle = false;
    armHeaderTimer();
  }

  private void tick() {
    if (frontend.closed()) {
      return;
    }
    long now = System.nanoTime();
    boolean tunnel = frontend.tunnel != null;
    if (active) {
      active = false;
      lastActivity = now;
      idleTimeouts = vs.timeouts();
    } else if (now - lastActivity
        >= (tunnel ? idleTimeouts.tunnel() : idleTimeouts.idle()).toNanos()) {
      idleTimeout();
      return;
    }
    if (tunnel) {
      return;
    }
    Exchange e = frontend.exchange;
    if (e != null && e.tick(now)) {
      return;
    }
    if (headerDeadline != 0 && now - headerDeadline >= 0) {
      headerDeadline = 0;
      if (frontend.exchange == null) {
        headTimeout();
      }
    }
  }

  private void idleTimeout() {
    boolean tunnel = frontend.tunnel != null;
    if (frontend.exchange != null || tunnel) {
      HttpFrontend.warnings.info(
          vs.service().key(),
          (tunnel
                  ? "tunnel idle for " + idleTimeouts.tunnel()
                  : "exchange idle for " + idleTimeouts.idle())
              + "; closing",
          "client " + frontend.remoteAddress());
    }
    frontend.closeNow();
  }

  private void headTimeout() {
    if (sawBytes) {
      HttpFrontend.warnings.info(
          vs.service().key(),
          "client sent no complete request head within " + timeouts.requestHead() + "; 408",
          frontend.remoteAddress());
      frontend.sendErrorAndClose(408, "The request did not arrive in time.");
    } else {
      HttpFrontend.log.debug(
          "{}: idle client {} closed after {}",
          vs.service().key(),
          frontend.remoteAddress(),
          keepAliveIdle ? timeouts.keepAlive() : timeouts.requestHead());
      frontend.close();
    }
  }
}
