package io.fairway.proxy.http;

import io.fairway.proxy.ProxyOptions;
import io.fairway.proxy.table.ProxyService;
import io.netty.buffer.ByteBuf;

/**
 * An {@link Exchange} for a request that arrived on another protocol's stream (HTTP/2): the stream
 * hands over the request as an HTTP/1.1 head it built, then its body, and the exchange goes through
 * the same scheduling, limits, queue, retries, deadlines and counters as a request of an HTTP/1.1
 * connection. The head is parsed by the same strict {@link HeadParser}, so what the HTTP/1.1 plane
 * refuses is refused here too.
 */
public final class StreamExchange {
  private final Exchange exchange;

  private StreamExchange(Exchange e) {
    this.exchange = e;
  }

  /** A request head the HTTP/1.1 parser refuses: the status to answer and why. */
  public static final class Refused extends Exception {
    private static final long serialVersionUID = 1L;
    private final int status;
    private final String reason;

    Refused(int status, String reason) {
      super(reason, null, false, false);
      this.status = status;
      this.reason = reason;
    }

    public int status() {
      return status;
    }

    /** The message, never null (unlike {@link #getMessage} as the compiler sees it). */
    public String reason() {
      return reason;
    }
  }

  /**
   * Parses {@code head} (an HTTP/1.1 request head, ending with its blank line) and starts its
   * exchange.
   *
   * @param hasBody a body follows (the head says how it is framed: Content-Length or chunked)
   */
  public static StreamExchange start(
      ClientSide client, ProxyService vs, ProxyOptions options, byte[] head, boolean hasBody)
      throws Refused {
    HttpHead h;
    try {
      h = HeadParser.parseRequest(head, head.length);
    } catch (BadMessage e) {
      throw new Refused(e.status, e.reason);
    }
    Exchange e = new Exchange(client, vs, options, vs.timeouts(), h, false);
    StreamExchange s = new StreamExchange(e);
    e.start();
    if (!hasBody) {
      s.end();
    }
    return s;
  }

  /** A slice of the request body, already framed as the head said. */
  public void body(ByteBuf b) {
    if (done()) {
      b.release(); // answered already (an error page): the rest of the body is not wanted
    } else {
      exchange.onRequestPart(b);
    }
  }

  /** The request body is complete. */
  public void end() {
    if (!done()) {
      exchange.onRequestPart(StrictRequestDecoder.END);
    }
  }

  public boolean done() {
    return exchange.state() == Exchange.State.DONE;
  }

  /** The client's read ended: what it brought goes to the backend. */
  public void flushBackend() {
    exchange.flushBackend();
  }

  public void clientWritabilityChanged(boolean writable) {
    exchange.clientWritabilityChanged(writable);
  }

  /**
   * The request's own deadline (gRPC's {@code grpc-timeout}) as a {@link System#nanoTime} value, 0
   * for none: the stream sets a timer for it, since the periodic tick may come up to a second late.
   */
  public long ownDeadline() {
    return exchange.deadlines.total();
  }

  /** Checks the exchange's deadlines; true when one passed and the client was answered. */
  public boolean tick(long now) {
    return exchange.tick(now);
  }

  /** The client went away (stream reset, connection closed): the exchange ends unanswered. */
  public void abandon() {
    if (!done()) {
      exchange.end(false);
    }
  }

  /** The body of the proxy's own error response with {@code status}. */
  public static byte[] errorPage(int status, String detail) {
    return ErrorPages.html(status, detail);
  }

  /** Counts a response the proxy made up for a request it refused before any exchange. */
  public static void refused(ProxyService vs, int status) {
    vs.http.answered(status);
  }

  /** For log lines: the method and target. */
  public String describe() {
    return exchange.request.method() + " " + exchange.request.target();
  }
}
