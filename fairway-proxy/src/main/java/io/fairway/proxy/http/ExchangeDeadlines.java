package io.fairway.proxy.http;

import io.fairway.proxy.ServiceTimeouts;

/**
 * The two deadlines of one exchange, as {@link System#nanoTime} values (0 = none): the request body
 * must have arrived by one, the response's first byte by the other. They are checked by the
 * connection's periodic tick, not by a timer each: arming and cancelling timers per request costs
 * more than the tick at keep-alive request rates.
 */
final class ExchangeDeadlines {
  /** What {@link #expired} found. */
  enum Expired {
    NONE,
    BODY,
    RESPONSE,
    /** The whole exchange's own deadline (gRPC's {@code grpc-timeout}). */
    TOTAL
  }

  private final ServiceTimeouts timeouts;
  private long body;
  private long response;
  private long total;

  /** The whole exchange must be over by {@code deadline} (a request's {@code grpc-timeout}). */
  void armTotal(long deadline) {
    total = deadline;
  }

  /** The whole exchange's deadline, 0 for none. */
  long total() {
    return total;
  }

  ExchangeDeadlines(ServiceTimeouts timeouts) {
    this.timeouts = timeouts;
  }

  /** A request body is coming: it has {@code request_body} from now, more as bytes arrive. */
  void armBody(long now) {
    body = now + timeouts.requestBody().toNanos();
  }

  /** Every {@code request_body_min_rate} bytes earn the body one more second. */
  void bodyProgress(int bytes) {
    if (body != 0 && timeouts.requestBodyMinRate() > 0) {
      body += bytes * 1_000_000_000L / timeouts.requestBodyMinRate();
    }
  }

  void bodyComplete() {
    body = 0;
  }

  /** The request is sent: the server has {@code first_byte} to start its answer. */
  void armResponse() {
    response = System.nanoTime() + timeouts.firstByte().toNanos();
  }

  void responseStarted() {
    response = 0;
  }

  /** Which deadline passed at {@code now}, the response's first; a deadline reported is cleared. */
  Expired expired(long now) {
    if (total != 0 && now - total >= 0) {
      total = 0;
      response = 0;
      body = 0;
      return Expired.TOTAL;
    }
    if (response != 0 && now - response >= 0) {
      response = 0;
      return Expired.RESPONSE;
    }
    if (body != 0 && now - body >= 0) {
      body = 0;
      return Expired.BODY;
    }
    return Expired.NONE;
  }
}
