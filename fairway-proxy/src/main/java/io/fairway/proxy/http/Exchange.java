package io.fairway.proxy.http;

import io.fairway.proxy.ProxyOptions;
import io.fairway.proxy.RateLimitedLog;
import io.fairway.proxy.ServiceTimeouts;
import io.fairway.proxy.accesslog.AccessRecord.Termination;
import io.fairway.proxy.http.StrictRequestDecoder.Malformed;
import io.fairway.proxy.table.Lease;
import io.fairway.proxy.table.ProxyBackend;
import io.fairway.proxy.table.ProxyService;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.handler.codec.http2.Http2StreamChannel;
import java.util.Locale;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One request and its response: the server chosen for it, the lease, the backend connection (pooled
 * keep-alive or fresh), its retries and its deadlines. It talks to its client only through {@link
 * ClientSide}, so it does not care whether the request came on an HTTP/1.1 connection or another
 * protocol's stream.
 *
 * <p>It goes {@link State#WAIT_SLOT} (only when every server is full) → {@link State#CONNECT} →
 * {@link State#FORWARD} → {@link State#STREAM} → {@link State#DONE}, or from FORWARD to {@link
 * State#TUNNEL} when the server switches protocols. A retry goes back to CONNECT (or WAIT_SLOT).
 *
 * <p>This class holds that state and relays the response; each other concern has its own class: the
 * request's way to the backend ({@link RequestForwarder}), choosing a server and a connection
 * ({@link BackendDialer}), retries when the backend fails ({@link Failover}), passed deadlines
 * ({@link ExchangeTimeouts}) and the access-log fields ({@link ExchangeLog}).
 *
 * <p>The request body streams to the backend as it arrives, with backpressure both ways: the side
 * being written to decides whether the other side is read.
 */
public final class Exchange {
  /** Where an exchange is; a request whose head has not arrived yet has no exchange. */
  enum State {
    /** Every server is full; the request waits in the service's queue for a slot. */
    WAIT_SLOT,
    /** A server is chosen (a lease held); its connection is being opened. */
    CONNECT,
    /** The request goes (or went) to the backend; no response head yet. */
    FORWARD,
    /** The response streams to the client. */
    STREAM,
    /** The server switched protocols; the tunnel starts after the backend's current read. */
    TUNNEL,
    DONE
  }

  private static final RateLimitedLog warnings = HttpFrontend.warnings;

  final ClientSide client;
  final ProxyService vs;
  private final ProxyOptions options;
  final ServiceTimeouts timeouts;
  final HttpHead request;

  /** When the request's head arrived (System.nanoTime). */
  private final long start;

  private final boolean clientHttp10;
  private boolean clientKeepAlive;
  final ExchangeDeadlines deadlines;
  final RetryState retries = new RetryState();
  private State state = State.CONNECT;

  private int responseStatus;
  private boolean backendReusable;

  /** The response body is close-delimited and the proxy chunks it for the client. */
  private boolean chunkResponse;

  /** What the access log says of it (see {@link ExchangeLog}). */
  final ExchangeLog trace;

  final RequestForwarder forwarder;
  final BackendDialer dialer;

  /** Set by {@link #leased} with {@link #lease}; null while there is none. */
  @Nullable ProxyBackend server;

  @Nullable Lease lease;

  /** Set by {@link #attach} with {@link #backendHandler}; null while no backend carries it. */
  private @Nullable Channel backend;

  private @Nullable HttpBackendHandler backendHandler;

  /** The backend is a stream of an HTTP/2 connection ({@code http2}): it is never pooled. */
  private boolean h2Backend;

  Exchange(
      ClientSide client,
      ProxyService vs,
      ProxyOptions options,
      ServiceTimeouts timeouts,
      HttpHead h,
      boolean draining) {
    this.client = client;
    this.vs = vs;
    this.options = options;
    this.timeouts = timeouts;
    this.request = h;
    this.start = System.nanoTime();
    this.trace = new ExchangeLog(start);
    this.clientHttp10 = h.http10;
    this.clientKeepAlive = h.keepAlive() && !draining;
    this.deadlines = new ExchangeDeadlines(timeouts);
    if (h.chunked || h.contentLength > 0) {
      deadlines.armBody(start);
    }
    if (client.framesBodies()) {
      long t = GrpcTimeout.nanos(h.header("grpc-timeout"));
      if (t > 0) {
        deadlines.armTotal(start + t);
      }
    }
    this.dialer = new BackendDialer(this, options);
    this.forwarder = new RequestForwarder(client, h, vs.spec().forwarded(), deadlines, trace);
  }

  /** Schedules the request: a server, then a connection to it. */
  void start() {
    dialer.acquire(false);
  }

  State state() {
    return state;
  }

  boolean requestComplete() {
    return forwarder.complete();
  }

  /** The table is stopping softly: this response says Connection: close (or closes after it). */
  void noKeepAlive() {
    clientKeepAlive = false;
  }

  boolean responseStarted() {
    return state == State.STREAM || state == State.TUNNEL;
  }

  /** Whether nothing more is wanted: the client went away, or the exchange ended. */
  boolean gone() {
    return client.closed() || state == State.DONE;
  }

  // ---- the request, from the client

  /** A body slice of the request, or its END. */
  void onRequestPart(Object msg) {
    forwarder.part(msg, backend, server);
  }

  /** The request body broke its framing. */
  void abortOnBadBody(String why) {
    warnings.warn(
        vs.service().key(), "malformed request body: " + why, "from " + client.remoteAddress());
    boolean answered = responseStarted();
    trace.cause = Termination.BAD_REQUEST;
    if (!answered) {
      trace.status = 400;
    }
    end(false);
    if (answered) {
      client.close();
    } else {
      client.sendErrorAndClose(400, "malformed request body");
    }
  }

  /** The client's read ended: what it brought goes to the backend. */
  void flushBackend() {
    if (backend != null) {
      backend.flush();
    }
  }

  void clientWritabilityChanged(boolean writable) {
    if (backend != null && responseStarted()) {
      backend.config().setAutoRead(writable);
    }
  }

  void backendWritabilityChanged(boolean writable) {
    if (!forwarder.complete() && writable) {
      client.resumeReading();
    }
  }

  // ---- the backend, from the dialer

  /** Every server is full: the request waits for a slot. */
  void waitSlot() {
    state = State.WAIT_SLOT;
  }

  /** A server is chosen: its connection is opened (or taken from the pool) next. */
  void leased(Lease l) {
    state = State.CONNECT;
    trace.leased(l.server);
    server = l.server;
    lease = l;
  }

  /** A backend connection (or HTTP/2 stream) carries the request from now. */
  void attach(Channel ch) {
    state = State.FORWARD;
    trace.connected(ch instanceof Http2StreamChannel);
    backend = ch;
    HttpBackendHandler h = (HttpBackendHandler) ch.pipeline().last();
    backendHandler = h;
    h.exchange = this;
    h2Backend = ch instanceof Http2StreamChannel;
    h.decoder.expect(
        request.isHead(),
        clientHttp10 || client.framesBodies(),
        request.upgrade,
        h2Backend && (client.framesBodies() || acceptsTrailers(request)));
    ProxyBackend rs = Objects.requireNonNull(server, "a connection is attached once leased");
    rs.established.add(client.connection());
    forwarder.sendOn(ch, rs);
  }

  /** An HTTP/1.1 client that says {@code TE: trailers} takes them in a chunked body. */
  private static boolean acceptsTrailers(HttpHead h) {
    String te = h.header("te");
    return te != null && te.toLowerCase(Locale.ROOT).contains("trailers");
  }

  /**
   * Lets go of the backend that failed, for a retry: the request is to go out again. Returns the
   * connection, for the caller to close.
   */
  @Nullable Channel detachBackend() {
    Channel b = backend;
    backend = null;
    backendHandler = null;
    server = null;
    forwarder.unsent();
    return b;
  }

  // ---- the response, from the backend

  /** The backend's current read was passed on. */
  void backendReadComplete() {
    if (state == State.TUNNEL) {
      startTunnel();
    } else {
      client.flush();
    }
  }

  void onBackendMessage(Object msg) {
    client.activity();
    if (msg instanceof HttpHead h) {
      servingServer().outBytes.add(h.length);
      trace.bytesOut += h.length;
      responseHead(h);
    } else if (msg == StrictRequestDecoder.END) {
      client.responseEnd(chunkResponse);
      finish();
    } else if (msg instanceof ResponseTrailers t) {
      client.responseTrailers(t.headers());
    } else if (msg instanceof Malformed m) {
      ProxyBackend rs = servingServer();
      rs.http.invalidResponse();
      backendBroken("malformed response from " + rs + ": " + m.reason());
    } else {
      ByteBuf b = (ByteBuf) msg;
      servingServer().outBytes.add(b.readableBytes());
      trace.bytesOut += b.readableBytes();
      client.responseBody(b, chunkResponse);
      if (!client.isWritable()) {
        Objects.requireNonNull(backend, "the response comes from it").config().setAutoRead(false);
      }
    }
  }

  /**
   * The server whose connection is answering: the backend's handler passes nothing on unless this
   * exchange is attached to it, and an exchange is attached only once leased.
   */
  private ProxyBackend servingServer() {
    return Objects.requireNonNull(server, "a response comes under a lease");
  }

  private void responseHead(HttpHead h) {
    deadlines.responseStarted();
    if (lease != null) {
      lease.served();
    }
    servingServer().http.firstByte(System.nanoTime() - start);
    if (h.status >= 200 || h.status == 101) {
      trace.firstByte(h.status);
    }
    if (h.status == 101) { // the decoder lets one through only for a protocol-switch request
      if (!forwarder.complete()) {
        backendBroken(server + " switched protocols before the request body ended");
        return;
      }
      state = State.TUNNEL;
      // As it came: its Upgrade and Connection headers are the switch itself.
      client.write(Unpooled.wrappedBuffer(h.bytes, 0, h.length));
      return;
    }
    if (h.status < 200) {
      // 100 Continue and friends: passed on, the real response follows. Not to an HTTP/1.0
      // client, which cannot know them (RFC 9110 15.2).
      if (!clientHttp10) {
        client.interimHead(h);
      }
      return;
    }
    state = State.STREAM;
    responseStatus = h.status;
    ResponseFraming f = ResponseFraming.of(h, request.isHead(), clientHttp10, clientKeepAlive);
    backendReusable = f.backendReusable();
    clientKeepAlive = f.clientKeepAlive();
    chunkResponse = f.addChunked();
    client.responseHead(h, f);
  }

  private void finish() {
    if (server != null) {
      server.http.completed(responseStatus, System.nanoTime() - start);
    }
    trace.cause = Termination.OK;
    end(backendReusable && forwarder.sent());
    client.answered(clientKeepAlive);
  }

  /** The server switched protocols: the exchange ends, its backend connection becomes a tunnel. */
  private void startTunnel() {
    // The 101 came from the attached connection, under the exchange's lease.
    Channel b = Objects.requireNonNull(backend, "attached");
    ProxyBackend rs = Objects.requireNonNull(server, "leased");
    Lease l = Objects.requireNonNull(lease, "leased");
    Objects.requireNonNull(backendHandler, "attached with the backend").exchange = null;
    backend = null;
    backendHandler = null;
    server = null;
    lease = null;
    forwarder.releaseHead();
    state = State.DONE;
    trace.cause = Termination.UPGRADED;
    trace.logTo(vs, client, request, retries.count());
    client.ended(this);
    client.startTunnel(b, rs, l, request);
  }

  /** Ends the exchange: releases the server, pools or closes the backend connection. */
  void end(boolean reuseBackend) {
    deadlines.responseStarted();
    ProxyBackend rs = server;
    Channel b = backend;
    if (b != null) {
      Objects.requireNonNull(backendHandler, "attached with the backend").exchange = null;
      if (!b.config().isAutoRead()) {
        b.config().setAutoRead(true);
      }
      if (!(reuseBackend
          && !h2Backend
          && rs != null
          && !rs.removed()
          && BackendPool.of(rs).offer(b, options.maxIdleBackendConnections()))) {
        b.close();
      }
    }
    if (lease != null) {
      lease.closeRequest();
    }
    if (rs != null) {
      rs.established.remove(client.connection());
    }
    forwarder.releasePending();
    forwarder.releaseHead();
    server = null;
    lease = null;
    backend = null;
    backendHandler = null;
    state = State.DONE;
    trace.logTo(vs, client, request, retries.count());
    client.ended(this);
  }

  // ---- failures and deadlines

  /** The backend connection failed or closed while this exchange was using it. */
  void backendFailed(String why) {
    Failover.backendFailed(this, why);
  }

  /** The HTTP/2 backend did not process the stream: see {@link Failover#backendRefused}. */
  void backendRefused(String why) {
    Failover.backendRefused(this, why);
  }

  /** The backend broke the exchange: a 502, or the close once the response has started. */
  void backendBroken(String why) {
    warnings.warn(vs.service().key(), why, null);
    boolean answered = responseStarted();
    trace.cause = Termination.SERVER_FAILED;
    if (!answered) {
      generated(server, 502);
    }
    end(false);
    if (answered) {
      client.close();
    } else {
      client.sendErrorAndClose(502, "The server sent no valid response.");
    }
  }

  /**
   * Checks this exchange's deadlines at {@code now}; true when one passed and the client was
   * answered or closed for it.
   */
  boolean tick(long now) {
    return ExchangeTimeouts.tick(this, now);
  }

  /** Counts a response the proxy makes up: for the server the request went to, else the service. */
  void generated(@Nullable ProxyBackend rs, int status) {
    trace.status = status;
    (rs != null ? rs.http : vs.http).generated(status, System.nanoTime() - start);
  }
}
