package io.fairway.proxy;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client connection of an HTTP service: schedules each request on its own, forwards it over a
 * pooled keep-alive backend connection and streams the response back.
 *
 * <p>One exchange at a time. Pipelined requests wait in a queue whose size is bounded by one read,
 * because the client stops being read once a request arrives while another is outstanding. Bodies
 * stream both ways with backpressure: the side being written to decides whether the other side is
 * read. Reading is only switched off when one of these limits is actually hit: each switch is a
 * system call, and an ordinary keep-alive client never needs one.
 *
 * <p>Everything here runs on the client channel's event loop; backend connections are opened on
 * the same loop, so no state is shared across threads.
 */
final class HttpFrontend extends ChannelInboundHandlerAdapter {
  private static final Logger log = LoggerFactory.getLogger(HttpFrontend.class);

  private static final List<String> HOP_BY_HOP =
      List.of("connection", "keep-alive", "proxy-connection", "te", "trailer", "upgrade");
  private static final Set<HttpMethod> IDEMPOTENT =
      Set.of(HttpMethod.GET, HttpMethod.HEAD, HttpMethod.OPTIONS, HttpMethod.TRACE, HttpMethod.PUT, HttpMethod.DELETE);

  private static final long LINGER_MS = 1000;

  private final VirtualService vs;
  private final ProxyOptions options;
  private final ProxyResponseEncoder encoder;
  private Channel client;
  private InetSocketAddress clientAddress;
  private String clientIp;
  private boolean closed;
  private final ArrayDeque<Object> queued = new ArrayDeque<>();
  /** Deadlines (System.nanoTime) checked by one ticker per connection; 0 = none. */
  private long headerDeadline;
  private long responseDeadline;
  private ScheduledFuture<?> ticker;
  /** Set by {@link ReadMarker} when bytes arrive; tells a slow client from an idle keep-alive one. */
  boolean sawBytes;

  // The exchange in progress; request == null when there is none.
  private HttpRequest request;
  private HttpVersion clientVersion;
  private boolean clientKeepAlive;
  private String key;
  private boolean requestComplete;
  private boolean requestSent;
  private boolean bodyBytes;
  private boolean responseStarted;
  private boolean backendReusable;
  private boolean interim;
  /** Retries of the current request: one after a dead pooled connection, one after a failing server. */
  private boolean retriedPooled;
  private boolean retriedFresh;
  private boolean reusedConnection;
  private final Set<RealServer> tried = new HashSet<>(2);
  private final ArrayDeque<HttpContent> pendingBody = new ArrayDeque<>();
  private RealServer server;
  private Lease lease;
  private Channel backend;

  HttpFrontend(VirtualService vs, ProxyOptions options, ProxyResponseEncoder encoder) {
    this.vs = vs;
    this.options = options;
    this.encoder = encoder;
  }

  /** Notes that the client sent bytes, before the decoder sees them. */
  static final class ReadMarker extends ChannelInboundHandlerAdapter {
    private final HttpFrontend frontend;

    ReadMarker(HttpFrontend frontend) {
      this.frontend = frontend;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      frontend.sawBytes = true;
      ctx.fireChannelRead(msg);
    }
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    client = ctx.channel();
    clientAddress = (InetSocketAddress) client.remoteAddress();
    clientIp = clientAddress.getAddress().getHostAddress();
    armHeaderTimer();
    long period = Math.min(options.clientHeaderTimeout().toMillis(), options.backendResponseTimeout().toMillis()) / 4;
    period = Math.max(10, Math.min(1000, period));
    // One periodic check per connection instead of a timer per request: arming and cancelling two
    // timers for every request costs more than this at keep-alive request rates.
    ticker = client.eventLoop().scheduleAtFixedRate(this::tick, period, period, TimeUnit.MILLISECONDS);
    ctx.fireChannelActive();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (closed) {
      ReferenceCountUtil.release(msg);
      return;
    }
    if (request != null && requestComplete) {
      // Pipelined: waits for the current response, and the client is not read meanwhile, so the
      // queue never holds more than one read's worth.
      queued.add(msg);
      client.config().setAutoRead(false);
      return;
    }
    onClientMessage(msg);
  }

  private void onClientMessage(Object msg) {
    if (msg instanceof HttpRequest req) {
      headerDeadline = 0;
      if (req.decoderResult().isFailure()) {
        Throwable cause = req.decoderResult().cause();
        ReferenceCountUtil.release(msg);
        rejectClient(cause);
        return;
      }
      String te = req.headers().get(HttpHeaderNames.TRANSFER_ENCODING);
      if (te != null && !te.trim().equalsIgnoreCase("chunked")) {
        ReferenceCountUtil.release(msg);
        rejectClient(new IllegalArgumentException("unsupported Transfer-Encoding: " + te));
        return;
      }
      startExchange(req);
    }
    if (msg instanceof HttpContent c) {
      if (request == null) {
        c.release(); // the rest of a request already answered
        return;
      }
      if (c.decoderResult().isFailure()) {
        Throwable cause = c.decoderResult().cause();
        c.release();
        abortOnBadBody(cause);
        return;
      }
      if (c instanceof LastHttpContent) {
        requestComplete = true;
      }
      if (backend == null) {
        pendingBody.add(c);
        if (pendingBody.size() > 1) {
          client.config().setAutoRead(false); // until the backend connection exists
        }
      } else {
        writeBody(c);
      }
    }
  }

  private void rejectClient(Throwable cause) {
    HttpResponseStatus status = HttpResponseStatus.BAD_REQUEST;
    String what = TcpFrontend.reason(cause);
    if (cause instanceof TooLongHttpHeaderException) {
      what = "request header fields too large";
    } else if (cause instanceof TooLongHttpLineException) {
      what = "request line too long";
    }
    log.warn("{}: bad request from {}: {}", vs.service().key(), clientAddress, what);
    sendErrorAndClose(status, what);
  }

  private void abortOnBadBody(Throwable cause) {
    log.warn("{}: malformed request body from {}: {}", vs.service().key(), clientAddress, TcpFrontend.reason(cause));
    boolean answered = responseStarted;
    endExchange(false);
    if (answered) {
      closeClient();
    } else {
      sendErrorAndClose(HttpResponseStatus.BAD_REQUEST, "malformed request body");
    }
  }

  private void startExchange(HttpRequest req) {
    request = req;
    clientVersion = req.protocolVersion();
    clientKeepAlive = HttpUtil.isKeepAlive(req);
    requestComplete = false;
    requestSent = false;
    bodyBytes = false;
    responseStarted = false;
    backendReusable = false;
    interim = false;
    retriedPooled = false;
    retriedFresh = false;
    tried.clear();
    key = vs.spec().keySource().extract(req);
    prepareRequestHead(req);
    acquire(false);
  }

  private void prepareRequestHead(HttpRequest req) {
    HttpHeaders h = req.headers();
    stripHopByHop(h);
    String ip = clientIp;
    String xff = h.get("X-Forwarded-For");
    h.set("X-Forwarded-For", xff == null ? ip : xff + ", " + ip);
    if (!h.contains("X-Forwarded-Proto")) {
      h.set("X-Forwarded-Proto", "http");
    }
    // Host is kept as the client sent it: backends route virtual hosts by it.
    req.setProtocolVersion(HttpVersion.HTTP_1_1);
  }

  private static void stripHopByHop(HttpHeaders h) {
    if (h.isEmpty()) {
      return;
    }
    for (String c : h.getAll(HttpHeaderNames.CONNECTION)) {
      for (String token : c.split(",")) {
        String t = token.trim().toLowerCase(Locale.ROOT);
        if (!t.isEmpty() && !t.equals("close") && !t.equals("keep-alive")) {
          h.remove(t);
        }
      }
    }
    for (String name : HOP_BY_HOP) {
      h.remove(name);
    }
  }

  /** Chooses a server and gets a connection to it; {@code fresh} skips pooled connections. */
  private void acquire(boolean fresh) {
    Lease l = vs.select(clientAddress, key, tried);
    if (l == null) {
      boolean none = tried.isEmpty();
      log.warn(
          "{}: {} for {} {}",
          vs.service().key(),
          none ? "no destination available" : "every destination failed " + tried,
          request.method(),
          request.uri());
      endExchange(false);
      sendErrorAndClose(
          none ? HttpResponseStatus.SERVICE_UNAVAILABLE : HttpResponseStatus.BAD_GATEWAY,
          none ? "No server is available to handle this request." : "The server could not be reached.");
      return;
    }
    RealServer rs = l.server;
    server = rs;
    lease = l;
    Channel pooled = fresh ? null : rs.pool.poll(client.eventLoop());
    if (pooled != null) {
      reusedConnection = true;
      attach(pooled);
      return;
    }
    ChannelFuture f = connect(rs);
    f.addListener(
        x -> {
          if (closed || request == null || lease != l) {
            l.closeRequest();
            f.channel().close();
            return;
          }
          if (f.isSuccess()) {
            reusedConnection = false;
            attach(f.channel());
          } else {
            log.warn("{}: connect to {} failed: {}", vs.service().key(), rs, TcpFrontend.reason(f.cause()));
            l.closeRequest();
            lease = null;
            server = null;
            tried.add(rs);
            acquire(fresh);
          }
        });
  }

  private ChannelFuture connect(RealServer rs) {
    return new Bootstrap()
        .group(client.eventLoop())
        .channel(Transport.socketChannel())
        .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) options.connectTimeout().toMillis())
        .option(ChannelOption.TCP_NODELAY, true)
        .handler(
            new ChannelInitializer<Channel>() {
              @Override
              protected void initChannel(Channel ch) {
                ch.pipeline()
                    .addLast(new HttpClientCodec(4096, options.maxHeaderSize() * 2, 16384, false, true))
                    .addLast(new IdleStateHandler(0, 0, options.backendKeepAlive().toMillis(), TimeUnit.MILLISECONDS))
                    .addLast(new HttpBackendHandler(rs));
              }
            })
        .connect(rs.address);
  }

  private void attach(Channel ch) {
    backend = ch;
    ((HttpBackendHandler) ch.pipeline().last()).frontend = this;
    server.established.add(client);
    ch.write(request);
    HttpContent c;
    while ((c = pendingBody.poll()) != null) {
      writeBody(c);
    }
    if (requestComplete && !requestSent) {
      // A retry of a bodiless request: the original end-of-request was already consumed.
      writeBody(LastHttpContent.EMPTY_LAST_CONTENT);
    }
    ch.flush();
    if (!requestComplete && ch.isWritable()) {
      client.config().setAutoRead(true);
    }
  }

  private void writeBody(HttpContent c) {
    if (c.content().isReadable()) {
      bodyBytes = true;
    }
    boolean last = c instanceof LastHttpContent;
    backend.write(c, backend.voidPromise());
    if (last) {
      requestSent = true;
      backend.flush();
      armResponseTimer();
    } else if (!backend.isWritable()) {
      client.config().setAutoRead(false);
    }
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    if (backend != null) {
      backend.flush();
    }
  }

  void backendWritabilityChanged(boolean writable) {
    if (request != null && !requestComplete && writable) {
      client.config().setAutoRead(true);
    }
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    if (backend != null && responseStarted) {
      backend.config().setAutoRead(client.isWritable());
    }
    ctx.fireChannelWritabilityChanged();
  }

  void flushClient() {
    client.flush();
  }

  void onBackendMessage(Object msg) {
    if (msg instanceof HttpResponse resp) {
      responseDeadline = 0;
      if (resp.decoderResult().isFailure()) {
        String why = TcpFrontend.reason(resp.decoderResult().cause());
        ReferenceCountUtil.release(msg);
        backendBroken("malformed response from " + server + ": " + why);
        return;
      }
      if (resp.status().codeClass() == HttpStatusClass.INFORMATIONAL) {
        // 100 Continue and friends: passed on; the real response follows.
        interim = true;
        stripHopByHop(resp.headers());
        encoder.headRequest = false;
        client.write(resp);
        return;
      }
      responseStarted = true;
      backendReusable = HttpUtil.isKeepAlive(resp);
      HttpHeaders h = resp.headers();
      stripHopByHop(h);
      boolean head = request.method().equals(HttpMethod.HEAD);
      int code = resp.status().code();
      boolean bodyPossible = !head && code != 204 && code != 304;
      if (bodyPossible && !HttpUtil.isContentLengthSet(resp) && !HttpUtil.isTransferEncodingChunked(resp)) {
        // Close-delimited body from the backend: chunk it for an HTTP/1.1 client, or end the
        // client connection after it for an HTTP/1.0 one.
        backendReusable = false;
        if (clientVersion.equals(HttpVersion.HTTP_1_1)) {
          h.set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
        } else {
          clientKeepAlive = false;
        }
      }
      if (!clientKeepAlive) {
        h.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
      } else if (clientVersion.equals(HttpVersion.HTTP_1_0)) {
        h.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
      }
      encoder.headRequest = head;
      client.write(resp);
    }
    if (msg instanceof HttpContent c) {
      if (interim) {
        if (c instanceof LastHttpContent) {
          interim = false;
        }
        c.release();
        return;
      }
      if (c.decoderResult().isFailure()) {
        String why = TcpFrontend.reason(c.decoderResult().cause());
        c.release();
        backendBroken("malformed response body from " + server + ": " + why);
        return;
      }
      client.write(c);
      if (c instanceof LastHttpContent) {
        finishExchange();
      } else if (!client.isWritable()) {
        backend.config().setAutoRead(false);
      }
    }
  }

  private void finishExchange() {
    boolean reuse = backendReusable && requestSent;
    endExchange(reuse);
    if (!clientKeepAlive) {
      closeClient();
      return;
    }
    client.flush();
    client.config().setAutoRead(true);
    while (!closed && !queued.isEmpty() && !(request != null && requestComplete)) {
      onClientMessage(queued.poll());
    }
    if (request == null && !closed) {
      sawBytes = false;
      armHeaderTimer();
    }
  }

  /** Ends the current exchange: releases the server, pools or closes the backend connection. */
  private void endExchange(boolean reuseBackend) {
    responseDeadline = 0;
    RealServer rs = server;
    Channel b = backend;
    if (b != null) {
      HttpBackendHandler h = (HttpBackendHandler) b.pipeline().last();
      if (h != null) {
        h.frontend = null;
      }
      b.config().setAutoRead(true);
      if (!(reuseBackend && rs != null && !rs.removed() && rs.pool.offer(b, options.maxIdleBackendConnections()))) {
        b.close();
      }
    }
    if (lease != null) {
      lease.closeRequest();
    }
    if (rs != null) {
      rs.established.remove(client);
    }
    HttpContent c;
    while ((c = pendingBody.poll()) != null) {
      c.release();
    }
    server = null;
    lease = null;
    backend = null;
    request = null;
  }

  /** The backend connection failed or closed while an exchange was using it. */
  void backendFailed(String why) {
    if (request == null || closed) {
      return;
    }
    responseDeadline = 0;
    RealServer rs = server;
    if (responseStarted) {
      log.warn("{}: {} failed mid-response ({}); closing client {}", vs.service().key(), rs, why, clientAddress);
      endExchange(false);
      closeClient();
      return;
    }
    // A pooled connection the backend closed is the keep-alive race: retry on a fresh connection,
    // the same server allowed. A fresh connection failing means the server is failing (being
    // killed, restarting): retry once on another server.
    boolean replayable = requestComplete && !bodyBytes && IDEMPOTENT.contains(request.method());
    boolean canRetry = replayable && (reusedConnection ? !retriedPooled : !retriedFresh);
    if (canRetry) {
      log.info("{}: {} failed before responding ({}); retrying {} {}{}", vs.service().key(), rs, why,
          request.method(), request.uri(), reusedConnection ? " on a fresh connection" : " on another server");
      if (reusedConnection) {
        retriedPooled = true;
      } else {
        retriedFresh = true;
        tried.add(rs);
      }
      Channel b = backend;
      backend = null;
      server = null;
      requestSent = false;
      if (b != null) {
        b.close();
      }
      lease.closeRequest();
      lease = null;
      rs.established.remove(client);
      // A fresh connection: other pooled connections to a server that just died are likely dead too.
      acquire(true);
      return;
    }
    backendBroken(rs + " failed before responding: " + why);
  }

  private void backendBroken(String why) {
    log.warn("{}: {}", vs.service().key(), why);
    boolean answered = responseStarted;
    endExchange(false);
    if (answered) {
      closeClient();
    } else {
      sendErrorAndClose(HttpResponseStatus.BAD_GATEWAY, "The server sent no valid response.");
    }
  }

  private void armResponseTimer() {
    responseDeadline = System.nanoTime() + options.backendResponseTimeout().toNanos();
  }

  private void armHeaderTimer() {
    headerDeadline = System.nanoTime() + options.clientHeaderTimeout().toNanos();
  }

  private void tick() {
    if (closed) {
      return;
    }
    long now = System.nanoTime();
    if (responseDeadline != 0 && now - responseDeadline >= 0) {
      responseDeadline = 0;
      if (request != null && !responseStarted) {
        log.warn("{}: {} did not answer {} {} within {}", vs.service().key(), server, request.method(), request.uri(), options.backendResponseTimeout());
        endExchange(false);
        sendErrorAndClose(HttpResponseStatus.GATEWAY_TIMEOUT, "The server did not answer in time.");
        return;
      }
    }
    if (headerDeadline != 0 && now - headerDeadline >= 0) {
      headerDeadline = 0;
      if (request == null) {
        if (sawBytes) {
          log.info("{}: client {} sent no complete request within {}; closing", vs.service().key(), clientAddress, options.clientHeaderTimeout());
          sendErrorAndClose(HttpResponseStatus.REQUEST_TIMEOUT, "The request did not arrive in time.");
        } else {
          log.debug("{}: idle client {} closed after {}", vs.service().key(), clientAddress, options.clientHeaderTimeout());
          closeClient();
        }
      }
    }
  }

  private void sendErrorAndClose(HttpResponseStatus status, String detail) {
    if (closed) {
      return;
    }
    closed = true;
    encoder.headRequest = false;
    releaseQueued();
    // Lingering close, as nginx does: closing with unread request bytes in the socket makes the
    // kernel send a reset that can destroy the error page before the client reads it. So: send
    // the page, half-close, and drain (discard) what the client still sends for a moment.
    client.config().setAutoRead(true);
    client
        .writeAndFlush(ErrorPages.page(status, detail, true))
        .addListener(
            f -> {
              if (f.isSuccess() && client instanceof SocketChannel sc) {
                sc.shutdownOutput();
                client.eventLoop().schedule(() -> client.close(), LINGER_MS, TimeUnit.MILLISECONDS);
              } else {
                client.close();
              }
            });
  }

  private void closeClient() {
    if (closed) {
      return;
    }
    closed = true;
    client.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
    releaseQueued();
  }

  private void releaseQueued() {
    Object o;
    while ((o = queued.poll()) != null) {
      ReferenceCountUtil.release(o);
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    closed = true;
    headerDeadline = 0;
    cancel(ticker);
    if (request != null) {
      endExchange(false);
    }
    releaseQueued();
    ctx.fireChannelInactive();
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
    if (evt instanceof IdleStateEvent) {
      if (request != null) {
        log.info("{}: exchange with {} idle for {}; closing", vs.service().key(), clientAddress, options.idleTimeout());
      }
      ctx.close();
      return;
    }
    ctx.fireUserEventTriggered(evt);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    log.debug("{}: client {} error: {}", vs.service().key(), clientAddress, TcpFrontend.reason(cause));
    ctx.close();
  }

  private static void cancel(ScheduledFuture<?> f) {
    if (f != null) {
      f.cancel(false);
    }
  }
}
