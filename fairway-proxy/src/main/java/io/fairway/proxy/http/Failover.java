package io.fairway.proxy.http;

import io.fairway.proxy.RateLimitedLog;
import io.fairway.proxy.accesslog.AccessRecord.Termination;
import io.fairway.proxy.table.Lease;
import io.fairway.proxy.table.ProxyBackend;
import io.netty.channel.Channel;
import java.util.Objects;

/**
 * What an {@link Exchange} does when its backend fails under it. Before any answer, a request that
 * can be replayed goes again ({@link RetryState} decides where: a fresh connection after the
 * keep-alive race, another server when the server itself failed or an HTTP/2 backend refused the
 * stream); otherwise the client gets a 502, or is closed once its response has started.
 *
 * <p>Apart from the exchange so that the retry path, which rewinds an exchange to its connect,
 * reads as one piece rather than as branches of the response relay.
 */
final class Failover {
  private static final RateLimitedLog warnings = HttpFrontend.warnings;

  private Failover() {}

  /** The backend connection failed or closed while {@code x} was using it. */
  static void backendFailed(Exchange x, String why) {
    if (x.state() == Exchange.State.DONE || x.client.closed()) {
      return;
    }
    x.deadlines.responseStarted();
    // Called by the attached connection's handler: the exchange is leased, until it ends.
    ProxyBackend rs = Objects.requireNonNull(x.server, "a backend fails under a lease");
    if (x.responseStarted()) {
      warnings.warn(
          x.vs.service().key(),
          rs + " failed mid-response (" + why + "); closing the client",
          x.client.remoteAddress());
      x.trace.cause = Termination.SERVER_FAILED;
      x.end(false);
      x.client.close();
      return;
    }
    boolean reused = x.retries.reusedConnection();
    if (!reused && x.lease != null) {
      // A fresh connection closed before any answer: the server refused it (a pooled one closed
      // under a request is the keep-alive race, and says nothing of its capacity).
      x.lease.refused();
    }
    boolean replayable = x.forwarder.replayable();
    if (x.retries.afterFailure(rs, replayable) == RetryState.Decision.GIVE_UP) {
      x.backendBroken(rs + " failed before responding: " + why);
      return;
    }
    warnings.info(
        x.vs.service().key(),
        rs
            + " failed before responding ("
            + why
            + "); retrying"
            + (reused ? " on a fresh connection" : " on another server"),
        x.request.method() + " " + x.request.target());
    rs.http.retried();
    Channel b = x.detachBackend();
    if (b != null) {
      b.close();
    }
    Objects.requireNonNull(x.lease, "leased with the server").closeRequest();
    x.lease = null;
    rs.established.remove(x.client.connection());
    x.client.notInRead();
    // A fresh connection: other pooled connections to a server that just died are likely dead
    // too.
    x.dialer.acquire(true);
  }

  /**
   * The HTTP/2 backend did not process the stream (REFUSED_STREAM, or above a GOAWAY's last stream
   * id): as a refused connection, the request goes to another server whatever its method (RFC 9113
   * 8.7), unless body bytes went into the stream and cannot be sent again.
   */
  static void backendRefused(Exchange x, String why) {
    if (x.state() == Exchange.State.DONE || x.client.closed()) {
      return;
    }
    if (x.responseStarted() || x.forwarder.bodyBytesSent()) {
      backendFailed(x, why);
      return;
    }
    // A stream of the attached connection was refused: leased, and attached.
    ProxyBackend rs = Objects.requireNonNull(x.server, "a stream is refused under a lease");
    Lease l = Objects.requireNonNull(x.lease, "leased with the server");
    warnings.info(x.vs.service().key(), rs + ": " + why + "; retrying on another server", null);
    rs.http.connectFailed();
    Channel b = Objects.requireNonNull(x.detachBackend(), "the refused stream");
    x.lease = null;
    b.close();
    l.refused();
    l.closeRequest();
    rs.established.remove(x.client.connection());
    x.retries.connectFailed(rs);
    x.client.notInRead();
    x.dialer.acquire(false);
  }
}
