package io.fairway.proxy;

import io.fairway.proxy.StrictRequestDecoder.Malformed;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.HashSet;
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
 * <p>Messages are the lean ones of {@link StrictRequestDecoder} and {@link ResponseDecoder}: heads
 * as parsed bytes, rewritten by {@link HeadWriter} with byte copies, bodies as the received slices.
 * Per request that is a few small arrays, instead of a header map, its strings and a re-encoding.
 *
 * <p>Everything here runs on the client channel's event loop; backend connections are opened on
 * the same loop, so no state is shared across threads.
 */
final class HttpFrontend extends ChannelInboundHandlerAdapter {
  private static final Logger log = LoggerFactory.getLogger(HttpFrontend.class);
  private static final long LINGER_MS = 1000;
  private static final byte[] LAST_CHUNK = "0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1);

  private final VirtualService vs;
  private final ProxyOptions options;
  private Channel client;
  private InetSocketAddress clientAddress;
  private byte[] clientIp;
  private boolean closed;
  /** Inside a read of the client: its channelReadComplete flushes the backend, nothing else need. */
  private boolean inClientRead;
  private final ArrayDeque<Object> queued = new ArrayDeque<>();
  /** Deadlines (System.nanoTime) checked by one ticker per connection; 0 = none. */
  private long headerDeadline;
  private long responseDeadline;
  private ScheduledFuture<?> ticker;
  /** Set by {@link ReadMarker} when bytes arrive; tells a slow client from an idle keep-alive one. */
  boolean sawBytes;
  /**
   * Something was read from the client or the backend since the last tick. The ticker turns this
   * into {@link #lastActivity} for the idle timeout: cheaper than an IdleStateHandler, which
   * reads the clock on every read and allocates a promise for every write it watches.
   */
  boolean active;
  private long lastActivity;

  // The exchange in progress; request == null when there is none.
  private HttpHead request;
  /** The request head as the backend gets it, kept until the exchange ends for a retry. */
  private ByteBuf upstreamHead;
  private boolean clientHttp10;
  private boolean clientKeepAlive;
  private String key;
  private boolean requestComplete;
  private boolean requestSent;
  private boolean bodyBytes;
  private boolean responseStarted;
  private boolean backendReusable;
  /** The response body is close-delimited and the proxy chunks it for the client. */
  private boolean chunkResponse;
  /** Retries of the current request: one after a dead pooled connection, one after a failing server. */
  private boolean retriedPooled;
  private boolean retriedFresh;
  private boolean reusedConnection;
  private final Set<RealServer> tried = new HashSet<>(2);
  /** Body slices and END received before the backend connection exists. */
  private final ArrayDeque<Object> pendingBody = new ArrayDeque<>();
  private RealServer server;
  private Lease lease;
  private Channel backend;
  private HttpBackendHandler backendHandler;

  HttpFrontend(VirtualService vs, ProxyOptions options) {
    this.vs = vs;
    this.options = options;
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
      frontend.active = true;
      ctx.fireChannelRead(msg);
    }
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    client = ctx.channel();
    clientAddress = (InetSocketAddress) client.remoteAddress();
    clientIp = clientAddress.getAddress().getHostAddress().getBytes(StandardCharsets.ISO_8859_1);
    armHeaderTimer();
    lastActivity = System.nanoTime();
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
    inClientRead = true;
    onClientMessage(msg);
  }

  private void onClientMessage(Object msg) {
    if (msg instanceof HttpHead h) {
      headerDeadline = 0;
      startExchange(h);
    } else if (msg instanceof Malformed m) {
      headerDeadline = 0;
      if (request == null) {
        log.warn("{}: bad request from {}: {}", vs.service().key(), clientAddress, m.reason());
        sendErrorAndClose(m.status(), m.reason());
      } else {
        abortOnBadBody(m.reason());
      }
    } else if (request == null) {
      ReferenceCountUtil.release(msg); // the rest of a request already answered
    } else {
      if (msg == StrictRequestDecoder.END) {
        requestComplete = true;
      }
      if (backend == null) {
        pendingBody.add(msg);
        if (pendingBody.size() > 1) {
          client.config().setAutoRead(false); // until the backend connection exists
        }
      } else {
        writeBody(msg);
      }
    }
  }

  private void abortOnBadBody(String why) {
    log.warn("{}: malformed request body from {}: {}", vs.service().key(), clientAddress, why);
    boolean answered = responseStarted;
    endExchange(false);
    if (answered) {
      closeClient();
    } else {
      sendErrorAndClose(400, "malformed request body");
    }
  }

  private void startExchange(HttpHead h) {
    request = h;
    clientHttp10 = h.http10;
    clientKeepAlive = h.keepAlive();
    requestComplete = false;
    requestSent = false;
    bodyBytes = false;
    responseStarted = false;
    backendReusable = false;
    chunkResponse = false;
    retriedPooled = false;
    retriedFresh = false;
    if (!tried.isEmpty()) {
      tried.clear();
    }
    key = vs.spec().keySource().extract(h);
    upstreamHead = HeadWriter.request(client.alloc(), h, clientIp);
    acquire(false);
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
          request.target());
      endExchange(false);
      sendErrorAndClose(
          none ? 503 : 502,
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
            inClientRead = false;
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
                ResponseDecoder decoder = new ResponseDecoder(options.maxHeaderSize() * 2 + 4096);
                ch.pipeline()
                    .addLast(decoder)
                    // Reader idle only: an idle pooled connection neither reads nor writes, and
                    // watching writes would cost a promise per write.
                    .addLast(new IdleStateHandler(options.backendKeepAlive().toMillis(), 0, 0, TimeUnit.MILLISECONDS))
                    .addLast(new HttpBackendHandler(rs, decoder));
              }
            })
        .connect(rs.address);
  }

  private void attach(Channel ch) {
    backend = ch;
    HttpBackendHandler h = (HttpBackendHandler) ch.pipeline().last();
    backendHandler = h;
    h.frontend = this;
    h.decoder.expect(request.isHead(), clientHttp10);
    server.established.add(client);
    // The kept head itself, not a duplicate: a retry rewinds it (writing moved its reader index).
    ch.write(upstreamHead.retain().readerIndex(0), ch.voidPromise());
    Object m;
    while ((m = pendingBody.poll()) != null) {
      writeBody(m);
    }
    if (requestComplete && !requestSent) {
      // A retry of a bodiless request: the original end-of-request was already consumed.
      requestSent = true;
      armResponseTimer();
    }
    if (!inClientRead) {
      ch.flush();
    }
    if (!requestComplete && ch.isWritable() && !client.config().isAutoRead()) {
      client.config().setAutoRead(true);
    }
  }

  private void writeBody(Object m) {
    if (m == StrictRequestDecoder.END) {
      requestSent = true;
      if (!inClientRead) {
        backend.flush();
      }
      armResponseTimer();
      return;
    }
    bodyBytes = true;
    backend.write(m, backend.voidPromise());
    if (!backend.isWritable()) {
      client.config().setAutoRead(false);
    }
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    inClientRead = false;
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
    active = true;
    if (msg instanceof HttpHead h) {
      responseHead(h);
    } else if (msg == StrictRequestDecoder.END) {
      if (chunkResponse) {
        client.write(Unpooled.wrappedBuffer(LAST_CHUNK), client.voidPromise());
      }
      finishExchange();
    } else if (msg instanceof Malformed m) {
      backendBroken("malformed response from " + server + ": " + m.reason());
    } else {
      ByteBuf b = (ByteBuf) msg;
      if (chunkResponse) {
        client.write(HeadWriter.chunkHeader(client.alloc(), b.readableBytes()), client.voidPromise());
        client.write(b, client.voidPromise());
        client.write(Unpooled.wrappedBuffer(HeadWriter.CRLF), client.voidPromise());
      } else {
        client.write(b, client.voidPromise());
      }
      if (!client.isWritable()) {
        backend.config().setAutoRead(false);
      }
    }
  }

  private void responseHead(HttpHead h) {
    responseDeadline = 0;
    if (h.status < 200) {
      // 100 Continue and friends: passed on, the real response follows. Not to an HTTP/1.0
      // client, which cannot know them (RFC 9110 15.2).
      if (!clientHttp10) {
        client.write(HeadWriter.response(client.alloc(), h, false, false, HeadWriter.Connection.UNCHANGED), client.voidPromise());
      }
      return;
    }
    responseStarted = true;
    backendReusable = h.keepAlive();
    int code = h.status;
    boolean bodyPossible = !request.isHead() && code != 204 && code != 304;
    boolean dechunk = false;
    boolean addChunked = false;
    if (bodyPossible) {
      if (h.chunked) {
        if (clientHttp10) {
          // The decoder passes the chunk data alone; the end of the body is the close.
          dechunk = true;
          clientKeepAlive = false;
        }
      } else if (h.transferEncoding || h.contentLength < 0) {
        // Close-delimited body from the backend: chunk it for an HTTP/1.1 client, or end the
        // client connection after it for an HTTP/1.0 one.
        backendReusable = false;
        if (!clientHttp10 && !h.transferEncoding && clientKeepAlive) {
          addChunked = true;
          chunkResponse = true;
        } else {
          clientKeepAlive = false;
        }
      }
    }
    HeadWriter.Connection c =
        !clientKeepAlive
            ? HeadWriter.Connection.CLOSE
            : clientHttp10 ? HeadWriter.Connection.KEEP_ALIVE : HeadWriter.Connection.UNCHANGED;
    client.write(HeadWriter.response(client.alloc(), h, dechunk, addChunked, c), client.voidPromise());
  }

  private void finishExchange() {
    boolean reuse = backendReusable && requestSent;
    endExchange(reuse);
    if (!clientKeepAlive) {
      closeClient();
      return;
    }
    client.flush();
    if (!client.config().isAutoRead()) {
      client.config().setAutoRead(true);
    }
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
      backendHandler.frontend = null;
      if (!b.config().isAutoRead()) {
        b.config().setAutoRead(true);
      }
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
    Object m;
    while ((m = pendingBody.poll()) != null) {
      ReferenceCountUtil.release(m);
    }
    if (upstreamHead != null) {
      upstreamHead.release();
      upstreamHead = null;
    }
    server = null;
    lease = null;
    backend = null;
    backendHandler = null;
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
    boolean replayable = requestComplete && !bodyBytes && request.idempotent();
    boolean canRetry = replayable && (reusedConnection ? !retriedPooled : !retriedFresh);
    if (canRetry) {
      log.info("{}: {} failed before responding ({}); retrying {} {}{}", vs.service().key(), rs, why,
          request.method(), request.target(), reusedConnection ? " on a fresh connection" : " on another server");
      if (reusedConnection) {
        retriedPooled = true;
      } else {
        retriedFresh = true;
        tried.add(rs);
      }
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
      rs.established.remove(client);
      inClientRead = false;
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
      sendErrorAndClose(502, "The server sent no valid response.");
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
    if (active) {
      active = false;
      lastActivity = now;
    } else if (now - lastActivity >= options.idleTimeout().toNanos()) {
      if (request != null) {
        log.info("{}: exchange with {} idle for {}; closing", vs.service().key(), clientAddress, options.idleTimeout());
      }
      closed = true;
      client.close();
      return;
    }
    if (responseDeadline != 0 && now - responseDeadline >= 0) {
      responseDeadline = 0;
      if (request != null && !responseStarted) {
        log.warn("{}: {} did not answer {} {} within {}", vs.service().key(), server, request.method(), request.target(), options.backendResponseTimeout());
        endExchange(false);
        sendErrorAndClose(504, "The server did not answer in time.");
        return;
      }
    }
    if (headerDeadline != 0 && now - headerDeadline >= 0) {
      headerDeadline = 0;
      if (request == null) {
        if (sawBytes) {
          log.info("{}: client {} sent no complete request within {}; closing", vs.service().key(), clientAddress, options.clientHeaderTimeout());
          sendErrorAndClose(408, "The request did not arrive in time.");
        } else {
          log.debug("{}: idle client {} closed after {}", vs.service().key(), clientAddress, options.clientHeaderTimeout());
          closeClient();
        }
      }
    }
  }

  private void sendErrorAndClose(int status, String detail) {
    if (closed) {
      return;
    }
    closed = true;
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
