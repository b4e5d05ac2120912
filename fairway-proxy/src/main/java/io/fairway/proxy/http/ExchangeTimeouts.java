package io.fairway.proxy.http;

import io.fairway.proxy.RateLimitedLog;
import io.fairway.proxy.accesslog.AccessRecord.Termination;

/**
 * What an {@link Exchange} does when one of its {@link ExchangeDeadlines} passed: a 504 when the
 * server did not answer in time or the request's own deadline ({@code grpc-timeout}) passed, a 408
 * when the client was too slow sending its body; the close instead once the response has started.
 *
 * <p>Apart from the exchange because these run from the connection's tick, not from either
 * channel's events, and each ends the exchange whatever it was doing.
 */
final class ExchangeTimeouts {
  private static final RateLimitedLog warnings = HttpFrontend.warnings;

  private ExchangeTimeouts() {}

  /**
   * Checks {@code x}'s deadlines at {@code now}; true when one passed and the client was answered
   * or closed for it.
   */
  static boolean tick(Exchange x, long now) {
    ExchangeDeadlines.Expired e = x.deadlines.expired(now);
    if (e == ExchangeDeadlines.Expired.TOTAL) {
      deadlineExceeded(x);
      return true;
    }
    if (e == ExchangeDeadlines.Expired.RESPONSE) {
      if (!x.responseStarted()) {
        noAnswer(x);
        return true;
      }
      e = x.deadlines.expired(now);
    }
    if (e == ExchangeDeadlines.Expired.BODY && !x.forwarder.complete()) {
      bodyTooSlow(x);
      return true;
    }
    return false;
  }

  /** The server sent no response head within {@code first_byte}. */
  private static void noAnswer(Exchange x) {
    warnings.warn(
        x.vs.service().key(),
        x.server + " did not answer within " + x.timeouts.firstByte(),
        x.request.method() + " " + x.request.target());
    x.trace.cause = Termination.SERVER_TIMEOUT;
    x.generated(x.server, 504);
    x.end(false);
    x.client.sendErrorAndClose(504, "The server did not answer in time.");
  }

  /**
   * The request's own deadline ({@code grpc-timeout}) passed: the client is told, the stream ends.
   */
  private static void deadlineExceeded(Exchange x) {
    warnings.info(
        x.vs.service().key(),
        "request deadline (grpc-timeout) exceeded" + (x.server != null ? " at " + x.server : ""),
        x.request.method() + " " + x.request.target());
    x.trace.cause = Termination.SERVER_TIMEOUT;
    if (!x.responseStarted()) {
      x.generated(x.server, 504);
    }
    x.end(false);
    x.client.deadlineExceeded();
  }

  private static void bodyTooSlow(Exchange x) {
    warnings.info(
        x.vs.service().key(),
        "client too slow sending a request body (request_body "
            + x.timeouts.requestBody()
            + ", min rate "
            + x.timeouts.requestBodyMinRate()
            + " B/s); 408",
        x.client.remoteAddress() + " " + x.request.method() + " " + x.request.target());
    boolean answered = x.responseStarted();
    x.trace.cause = Termination.CLIENT_TIMEOUT;
    if (!answered) {
      x.trace.status = 408;
    }
    x.end(false); // the backend has half a request: its connection cannot be reused
    if (answered) {
      x.client.close();
    } else {
      x.client.sendErrorAndClose(408, "The request body did not arrive in time.");
    }
  }
}
