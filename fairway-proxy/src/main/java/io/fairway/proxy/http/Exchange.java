package io.fairway.proxy.http;

import io.fairway.proxy.ProxyOptions;
import io.fairway.proxy.RateLimitedLog;
import io.fairway.proxy.ServiceTimeouts;
import io.fairway.proxy.accesslog.AccessLog;
import io.fairway.proxy.accesslog.AccessRecord.Termination;
import io.fairway.proxy.http.StrictRequestDecoder.Malformed;
import io.fairway.proxy.l4.TcpFrontend;
import io.fairway.proxy.proxyprotocol.ProxyHeaderWriter;
import io.fairway.proxy.table.Lease;
import io.fairway.proxy.table.Pick;
import io.fairway.proxy.table.ProxyBackend;
import io.fairway.proxy.table.ProxyService;
import io.fairway.proxy.table.SlotWaiter;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.util.ReferenceCountUtil;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;

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
 * <p>The request body streams to the backend as it arrives, with backpressure both ways: the side
 * being written to decides whether the other side is read.
 */
public final class Exchange implements SlotWaiter {
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

  private final ClientSide client;
  private final ProxyService vs;
  private final ProxyOptions options;
  private final ServiceTimeouts timeouts;
  final HttpHead request;

  /** When the request's head arrived (System.nanoTime). */
  private final long start;

  private final String key;

  /** The shard alt this request asks for ({@code alt_header}), or {@link RequestAlt#NONE}. */
  private final int askedAlt;

  private final boolean clientHttp10;
  private boolean clientKeepAlive;
  private final ExchangeDeadlines deadlines;
  private final RetryState retries = new RetryState();
  private State state = State.CONNECT;

  /** The request head as the backend gets it, kept until the exchange ends for a retry. */
  private ByteBuf upstreamHead;

  private int responseStatus;
  private boolean requestComplete;
  private boolean requestSent;
  private boolean bodyBytes;
  private boolean backendReusable;

  /** The response body is close-delimited and the proxy chunks it for the client. */
  private boolean chunkResponse;

  /** Body slices and END received before the backend connection exists. */
  private final ArrayDeque<Object> pendingBody = new ArrayDeque<>(2);

  private boolean waitingFresh;

  /** What the access log says of it (see {@link ExchangeLog}). */
  private final ExchangeLog trace;

  private ProxyBackend server;
  private Lease lease;
  private Channel backend;
  private HttpBackendHandler backendHandler;

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
    this.key = vs.spec().keySource().extract(h);
    this.askedAlt = RequestAlt.of(vs.spec().selection(), h);
    this.upstreamHead =
        HeadWriter.request(
            client.alloc(),
            h,
            client.clientIp(),
            h.hasHost ? null : client.hostHeader(),
            vs.spec().forwarded(),
            io.fairway.proxy.tls.TlsHandshakes.isTls(client.socket()));
  }

  /** Schedules the request: a server, then a connection to it. */
  void start() {
    acquire(false);
  }

  State state() {
    return state;
  }

  boolean requestComplete() {
    return requestComplete;
  }

  /** The table is stopping softly: this response says Connection: close (or closes after it). */
  void noKeepAlive() {
    clientKeepAlive = false;
  }

  private boolean responseStarted() {
    return state == State.STREAM || state == State.TUNNEL;
  }

  // ---- the request, from the client

  /** A body slice of the request, or its END. */
  void onRequestPart(Object msg) {
    if (msg == StrictRequestDecoder.END) {
      requestComplete = true;
      deadlines.bodyComplete();
      if (request.upgrade) {
        // The decoder holds what follows until the answer; one read's worth at most.
        client.pauseReading();
      }
    } else {
      deadlines.bodyProgress(((ByteBuf) msg).readableBytes());
    }
    if (backend == null) {
      pendingBody.add(msg);
      if (pendingBody.size() > 1) {
        client.pauseReading(); // until the backend connection exists
      }
    } else {
      writeBody(msg);
    }
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

  private void writeBody(Object m) {
    if (m == StrictRequestDecoder.END) {
      requestSent = true;
      if (!client.inRead()) {
        backend.flush();
      }
      deadlines.armResponse();
      return;
    }
    bodyBytes = true;
    // Counted as L4 counts: what goes to the server, by the server's per-server counters.
    int n = ((ByteBuf) m).readableBytes();
    server.inBytes.add(n);
    trace.bytesIn += n;
    backend.write(m, backend.voidPromise());
    if (!backend.isWritable()) {
      client.pauseReading();
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
    if (!requestComplete && writable) {
      client.resumeReading();
    }
  }

  // ---- choosing a server and a connection

  /** Chooses a server and gets a connection to it; {@code fresh} skips pooled connections. */
  private void acquire(boolean fresh) {
    Pick p =
        vs.schedule(
            client.remoteAddress(),
            key,
            retries.tried(),
            askedAlt,
            client.eventLoop(),
            timeouts.connect(),
            this);
    if (p instanceof Pick.Queued) {
      state = State.WAIT_SLOT;
      waitingFresh = fresh;
      return;
    }
    acquire(p, fresh);
  }

  @Override
  public boolean gone() {
    return client.closed() || state == State.DONE;
  }

  @Override
  public void resume(Pick p) {
    acquire(p, waitingFresh); // or the 503 of no server at all: nothing to wait for any more
  }

  /** No slot within the connect timeout: 503, as when there is no server. */
  @Override
  public void timedOut() {
    if (gone()) {
      return;
    }
    warnings.warn(
        vs.service().key(),
        "every server full (uthreshold or max_conns) for " + timeouts.connect(),
        request.method() + " " + request.target() + " from " + client.remoteAddress());
    trace.cause = Termination.QUEUE_TIMEOUT;
    generated(null, 503);
    end(false);
    client.sendErrorAndClose(503, "No server is available to handle this request.");
  }

  /** Goes on with the server a {@link Lease} is for, or answers when there is none. */
  private void acquire(Pick p, boolean fresh) {
    if (!(p instanceof Lease l)) {
      noServer(p != Pick.None.ALL_TRIED);
      return;
    }
    ProxyBackend rs = l.server;
    state = State.CONNECT;
    trace.leased(rs);
    server = rs;
    lease = l;
    if (vs.http2(rs)) {
      h2Stream(rs, l, fresh);
      return;
    }
    InetSocketAddress owner = ProxyHeaderWriter.owner(vs.sendProxy(rs), client.socket());
    Channel pooled = fresh ? null : BackendPool.of(rs).poll(client.eventLoop(), owner);
    if (pooled != null) {
      retries.attempt(true);
      attach(pooled);
      return;
    }
    long connectStart = System.nanoTime();
    ChannelFuture f = BackendConnect.open(rs, client.eventLoop(), options, timeouts, () -> tls(rs));
    ProxyHeaderWriter.onConnect(f, vs.sendProxy(rs), client.socket()); // before the request
    f.addListener(
        x -> {
          if (f.isSuccess() && lease == l && !gone()) {
            rs.http.connected(System.nanoTime() - connectStart);
          }
          connected(l, fresh, f.isSuccess() ? f.channel() : null, f.cause(), f.channel());
        });
  }

  /** A stream of the server's HTTP/2 connection on this loop ({@code http2}), opened if need be. */
  private void h2Stream(ProxyBackend rs, Lease l, boolean fresh) {
    boolean https = vs.backendTlsConfigured(rs);
    H2Link link =
        H2Links.of(rs)
            .get(
                client.eventLoop(),
                () -> H2Link.open(rs, client.eventLoop(), options, timeouts, () -> tls(rs)));
    io.netty.util.concurrent.Future<io.netty.handler.codec.http2.Http2StreamChannel> f =
        link.stream(
            new io.netty.channel.ChannelInitializer<Channel>() {
              @Override
              protected void initChannel(Channel ch) {
                H2ResponseReader reader = new H2ResponseReader();
                ch.pipeline()
                    .addLast(
                        new H2RequestWriter(https), reader, new HttpBackendHandler(rs, reader));
              }
            });
    f.addListener(
        x -> connected(l, fresh, f.isSuccess() ? f.getNow() : null, f.cause(), f.getNow()));
  }

  private io.netty.handler.ssl.SslHandler tls(ProxyBackend rs) {
    try {
      return vs.backendTls(rs, io.fairway.proxy.Transport.ALLOCATOR);
    } catch (javax.net.ssl.SSLException e) {
      // Fails this connect (Connector): the exchange's ordinary connect failure.
      throw new IllegalStateException("TLS to " + rs + ": " + e.getMessage(), e);
    }
  }

  /**
   * A backend connection (or HTTP/2 stream) asked for under lease {@code l} is there ({@code ch}),
   * or failed with {@code cause}: the request goes on, or to the next server.
   */
  private void connected(Lease l, boolean fresh, Channel ch, Throwable cause, Channel opened) {
    ProxyBackend rs = l.server;
    if (client.closed() || state == State.DONE || lease != l) {
      l.closeRequest();
      if (opened != null) {
        opened.close();
      }
      return;
    }
    if (ch != null) {
      retries.attempt(false);
      client.notInRead();
      attach(ch);
      return;
    }
    warnings.warn(
        vs.service().key(), "connect to " + rs + " failed: " + TcpFrontend.reason(cause), null);
    rs.http.connectFailed();
    l.refused();
    l.closeRequest();
    lease = null;
    server = null;
    retries.connectFailed(rs);
    acquire(fresh);
  }

  /** No server at all (503), or every one failed (502). */
  private void noServer(boolean none) {
    warnings.warn(
        vs.service().key(),
        none ? "no destination available" : "every destination failed",
        (none ? "" : retries.tried() + " ")
            + request.method()
            + " "
            + request.target()
            + " from "
            + client.remoteAddress());
    trace.cause = none ? Termination.NO_SERVER : Termination.SERVER_FAILED;
    generated(none ? null : retries.lastFailed(), none ? 503 : 502);
    end(false);
    client.sendErrorAndClose(
        none ? 503 : 502,
        none
            ? "No server is available to handle this request."
            : "The server could not be reached.");
  }

  private void attach(Channel ch) {
    state = State.FORWARD;
    trace.connected(ch instanceof io.netty.handler.codec.http2.Http2StreamChannel);
    backend = ch;
    HttpBackendHandler h = (HttpBackendHandler) ch.pipeline().last();
    backendHandler = h;
    h.exchange = this;
    h2Backend = ch instanceof io.netty.handler.codec.http2.Http2StreamChannel;
    h.decoder.expect(
        request.isHead(),
        clientHttp10 || client.framesBodies(),
        request.upgrade,
        h2Backend && (client.framesBodies() || acceptsTrailers(request)));
    server.established.add(client.connection());
    // The kept head itself, not a duplicate: a retry rewinds it (writing moved its reader index).
    upstreamHead.readerIndex(0);
    server.inBytes.add(upstreamHead.readableBytes());
    trace.bytesIn += upstreamHead.readableBytes();
    ch.write(upstreamHead.retain(), ch.voidPromise());
    Object m;
    while ((m = pendingBody.poll()) != null) {
      writeBody(m);
    }
    if (requestComplete && !requestSent) {
      // A retry of a bodiless request: the original end-of-request was already consumed.
      requestSent = true;
      deadlines.armResponse();
    }
    if (!client.inRead()) {
      ch.flush();
    }
    if (!requestComplete && ch.isWritable()) {
      client.resumeReading();
    }
  }

  /** An HTTP/1.1 client that says {@code TE: trailers} takes them in a chunked body. */
  private static boolean acceptsTrailers(HttpHead h) {
    String te = h.header("te");
    return te != null && te.toLowerCase(java.util.Locale.ROOT).contains("trailers");
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
      server.outBytes.add(h.length);
      trace.bytesOut += h.length;
      responseHead(h);
    } else if (msg == StrictRequestDecoder.END) {
      client.responseEnd(chunkResponse);
      finish();
    } else if (msg instanceof ResponseTrailers t) {
      client.responseTrailers(t.headers());
    } else if (msg instanceof Malformed m) {
      server.http.invalidResponse();
      backendBroken("malformed response from " + server + ": " + m.reason());
    } else {
      ByteBuf b = (ByteBuf) msg;
      server.outBytes.add(b.readableBytes());
      trace.bytesOut += b.readableBytes();
      client.responseBody(b, chunkResponse);
      if (!client.isWritable()) {
        backend.config().setAutoRead(false);
      }
    }
  }

  private void responseHead(HttpHead h) {
    deadlines.responseStarted();
    if (lease != null) {
      lease.served();
    }
    server.http.firstByte(System.nanoTime() - start);
    if (h.status >= 200 || h.status == 101) {
      trace.firstByte(h.status);
    }
    if (h.status == 101) { // the decoder lets one through only for a protocol-switch request
      if (!requestComplete) {
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
    end(backendReusable && requestSent);
    client.answered(clientKeepAlive);
  }

  /** The server switched protocols: the exchange ends, its backend connection becomes a tunnel. */
  private void startTunnel() {
    Channel b = backend;
    ProxyBackend rs = server;
    Lease l = lease;
    backendHandler.exchange = null;
    backend = null;
    backendHandler = null;
    server = null;
    lease = null;
    releaseHead();
    state = State.DONE;
    trace.cause = Termination.UPGRADED;
    logged();
    client.ended(this);
    client.startTunnel(b, rs, l, request);
  }

  /** Ends the exchange: releases the server, pools or closes the backend connection. */
  void end(boolean reuseBackend) {
    deadlines.responseStarted();
    ProxyBackend rs = server;
    Channel b = backend;
    if (b != null) {
      backendHandler.exchange = null;
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
    Object m;
    while ((m = pendingBody.poll()) != null) {
      ReferenceCountUtil.release(m);
    }
    releaseHead();
    server = null;
    lease = null;
    backend = null;
    backendHandler = null;
    state = State.DONE;
    logged();
    client.ended(this);
  }

  private void logged() {
    AccessLog log = vs.accessLog();
    if (log != AccessLog.NONE) {
      log.record(
          trace.record(
              client.remoteAddress(),
              vs.service().key().toString(),
              request,
              client.protocol(),
              retries.count(),
              client.tlsVersion(),
              client.sni()));
    }
  }

  private void releaseHead() {
    if (upstreamHead != null) {
      upstreamHead.release();
      upstreamHead = null;
    }
  }

  // ---- failures and deadlines

  /** The backend connection failed or closed while this exchange was using it. */
  void backendFailed(String why) {
    if (state == State.DONE || client.closed()) {
      return;
    }
    deadlines.responseStarted();
    ProxyBackend rs = server;
    if (responseStarted()) {
      warnings.warn(
          vs.service().key(),
          rs + " failed mid-response (" + why + "); closing the client",
          client.remoteAddress());
      trace.cause = Termination.SERVER_FAILED;
      end(false);
      client.close();
      return;
    }
    boolean reused = retries.reusedConnection();
    if (!reused && lease != null) {
      // A fresh connection closed before any answer: the server refused it (a pooled one closed
      // under a request is the keep-alive race, and says nothing of its capacity).
      lease.refused();
    }
    boolean replayable = requestComplete && !bodyBytes && request.idempotent();
    if (retries.afterFailure(rs, replayable) == RetryState.Decision.GIVE_UP) {
      backendBroken(rs + " failed before responding: " + why);
      return;
    }
    warnings.info(
        vs.service().key(),
        rs
            + " failed before responding ("
            + why
            + "); retrying"
            + (reused ? " on a fresh connection" : " on another server"),
        request.method() + " " + request.target());
    rs.http.retried();
    Channel b = backend;
    backend = null;
    backendHandler = null;
    server = null;
    requestSent = false;
    if (b != null) {
      b.close();
    }
    lease.closeRequest();
    lease = null;
    rs.established.remove(client.connection());
    client.notInRead();
    // A fresh connection: other pooled connections to a server that just died are likely dead
    // too.
    acquire(true);
  }

  /**
   * The HTTP/2 backend did not process the stream (REFUSED_STREAM, or above a GOAWAY's last stream
   * id): as a refused connection, the request goes to another server whatever its method (RFC 9113
   * 8.7), unless body bytes went into the stream and cannot be sent again.
   */
  void backendRefused(String why) {
    if (state == State.DONE || client.closed()) {
      return;
    }
    if (responseStarted() || bodyBytes) {
      backendFailed(why);
      return;
    }
    ProxyBackend rs = server;
    Lease l = lease;
    warnings.info(vs.service().key(), rs + ": " + why + "; retrying on another server", null);
    rs.http.connectFailed();
    Channel b = backend;
    backend = null;
    backendHandler = null;
    server = null;
    lease = null;
    requestSent = false;
    b.close();
    l.refused();
    l.closeRequest();
    rs.established.remove(client.connection());
    retries.connectFailed(rs);
    client.notInRead();
    acquire(false);
  }

  private void backendBroken(String why) {
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
    ExchangeDeadlines.Expired e = deadlines.expired(now);
    if (e == ExchangeDeadlines.Expired.TOTAL) {
      deadlineExceeded();
      return true;
    }
    if (e == ExchangeDeadlines.Expired.RESPONSE) {
      if (!responseStarted()) {
        warnings.warn(
            vs.service().key(),
            server + " did not answer within " + timeouts.firstByte(),
            request.method() + " " + request.target());
        trace.cause = Termination.SERVER_TIMEOUT;
        generated(server, 504);
        end(false);
        client.sendErrorAndClose(504, "The server did not answer in time.");
        return true;
      }
      e = deadlines.expired(now);
    }
    if (e == ExchangeDeadlines.Expired.BODY && !requestComplete) {
      bodyTooSlow();
      return true;
    }
    return false;
  }

  /**
   * The request's own deadline ({@code grpc-timeout}) passed: the client is told, the stream ends.
   */
  private void deadlineExceeded() {
    warnings.info(
        vs.service().key(),
        "request deadline (grpc-timeout) exceeded" + (server != null ? " at " + server : ""),
        request.method() + " " + request.target());
    trace.cause = Termination.SERVER_TIMEOUT;
    if (!responseStarted()) {
      generated(server, 504);
    }
    end(false);
    client.deadlineExceeded();
  }

  private void bodyTooSlow() {
    warnings.info(
        vs.service().key(),
        "client too slow sending a request body (request_body "
            + timeouts.requestBody()
            + ", min rate "
            + timeouts.requestBodyMinRate()
            + " B/s); 408",
        client.remoteAddress() + " " + request.method() + " " + request.target());
    boolean answered = responseStarted();
    trace.cause = Termination.CLIENT_TIMEOUT;
    if (!answered) {
      trace.status = 408;
    }
    end(false); // the backend has half a request: its connection cannot be reused
    if (answered) {
      client.close();
    } else {
      client.sendErrorAndClose(408, "The request body did not arrive in time.");
    }
  }

  /** Counts a response the proxy makes up: for the server the request went to, else the service. */
  private void generated(ProxyBackend rs, int status) {
    trace.status = status;
    (rs != null ? rs.http : vs.http).generated(status, System.nanoTime() - start);
  }
}
