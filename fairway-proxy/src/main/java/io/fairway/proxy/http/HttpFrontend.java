package io.fairway.proxy.http;

import io.fairway.proxy.ProxyOptions;
import io.fairway.proxy.RateLimitedLog;
import io.fairway.proxy.ServiceTimeouts;
import io.fairway.proxy.http.StrictRequestDecoder.Malformed;
import io.fairway.proxy.l4.Relay;
import io.fairway.proxy.l4.TcpFrontend;
import io.fairway.proxy.table.Drain;
import io.fairway.proxy.table.HttpStats;
import io.fairway.proxy.table.Lease;
import io.fairway.proxy.table.ProxyBackend;
import io.fairway.proxy.table.ProxyService;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.SocketChannel;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One HTTP/1.1 client connection: reads request heads, starts an {@link Exchange} for each, and
 * keeps what belongs to the connection rather than to a request: keep-alive, pipelining order,
 * half-close, the idle and head timeouts, and the upgrade tunnel.
 *
 * <p>One exchange at a time. Pipelined requests wait in a queue whose size is bounded by one read,
 * because the client stops being read once a request arrives while another is outstanding. Reading
 * is only switched off when a limit is actually hit: each switch is a system call, and an ordinary
 * keep-alive client never needs one.
 *
 * <p>Messages are the lean ones of {@link StrictRequestDecoder} and {@link ResponseDecoder}: heads
 * as parsed bytes, rewritten by {@link HeadWriter} with byte copies, bodies as the received slices.
 * Per request that is a few small arrays, instead of a header map, its strings and a re-encoding.
 *
 * <p>Half-close: a client that shuts down its sending side after its request(s) still gets every
 * answer, then the connection closes; one that does so in the middle of a request gets nothing (the
 * request is never complete) and is closed.
 *
 * <p>Protocol switch (WebSocket and any {@code Connection: upgrade}): the request goes out with its
 * Upgrade header; a 101 from the backend turns the exchange into a tunnel, the HTTP handlers leave
 * both pipelines and an L4 {@link Relay} takes over each direction. The backend connection then
 * belongs to that client for good (never pooled) and counts as an established connection of the
 * server until it closes. Any other answer is an ordinary response, and what the client sent after
 * its request is decoded as HTTP.
 *
 * <p>Everything here runs on the client channel's event loop; backend connections are opened on the
 * same loop, so no state is shared across threads.
 */
public final class HttpFrontend extends ChannelInboundHandlerAdapter implements ClientSide {
  private static final Logger log = LoggerFactory.getLogger(HttpFrontend.class);

  /** What a fault or a flood repeats per request: each kind once per 10 s, with counts. */
  static final RateLimitedLog warnings = new RateLimitedLog(log, java.time.Duration.ofSeconds(10));

  private static final long LINGER_MS = 1000;

  private final ProxyService vs;
  private final ProxyOptions options;

  /** This connection's timeouts: the service's as of the accept. */
  private final ServiceTimeouts timeouts;

  private Channel client;
  private StrictRequestDecoder decoder;

  /** The table is stopping softly: finish the exchange under way, then close. */
  private boolean draining;

  /** The client shut down its sending side: answer what it asked, then close. */
  private boolean inputShutdown;

  /** The backend of the tunnel this connection became, or {@code null}. */
  private Channel tunnel;

  private InetSocketAddress clientAddress;

  /**
   * The client's TLS version and server name for the access log; {@link
   * io.fairway.proxy.tls.TlsInfo#NONE} without.
   */
  private io.fairway.proxy.tls.TlsInfo tls = io.fairway.proxy.tls.TlsInfo.NONE;

  private byte[] clientIp;
  private boolean closed;

  /** In the service's open HTTP/1.1 connections (from channelActive to channelInactive). */
  private boolean counted;

  /**
   * Inside a read of the client: its channelReadComplete flushes the backend, nothing else need.
   */
  private boolean inClientRead;

  // Small first: an idle keep-alive connection holds these; they grow when a request pipelines.
  private final ArrayDeque<Object> queued = new ArrayDeque<>(2);

  /** The request head must be complete by then (System.nanoTime); 0 = none. */
  private long headerDeadline;

  /** Between requests of a kept-alive connection: headerDeadline is the keep-alive timeout. */
  boolean keepAliveIdle;

  private ScheduledFuture<?> ticker;

  /**
   * Set by {@link ReadMarker} when bytes arrive; tells a slow client from an idle keep-alive one.
   */
  boolean sawBytes;

  /**
   * Something was read from the client or the backend since the last tick. The ticker turns this
   * into {@link #lastActivity} for the idle timeout: cheaper than an IdleStateHandler, which reads
   * the clock on every read and allocates a promise for every write it watches.
   */
  boolean active;

  private long lastActivity;

  /**
   * The service's idle and tunnel timeouts as of {@link #lastActivity}: a reload that changes them
   * reaches this connection with its next byte, as IPVS gives a connection the current timeout at
   * each packet; until then the deadline it had stands.
   */
  private ServiceTimeouts idleTimeouts;

  /** The request in progress, or {@code null}. */
  private Exchange exchange;

  public HttpFrontend(ProxyService vs, ProxyOptions options) {
    this.vs = vs;
    this.options = options;
    this.timeouts = vs.timeouts();
  }

  /** Notes that the client sent bytes, before the decoder sees them. */
  public static final class ReadMarker extends ChannelInboundHandlerAdapter {
    private final HttpFrontend frontend;

    public ReadMarker(HttpFrontend frontend) {
      this.frontend = frontend;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      if (!frontend.sawBytes && frontend.keepAliveIdle) {
        frontend.nextRequestStarted();
      }
      frontend.sawBytes = true;
      frontend.active = true;
      ctx.fireChannelRead(msg);
    }
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    client = ctx.channel();
    decoder = ctx.pipeline().get(StrictRequestDecoder.class);
    // A FIN from the client ends its requests, not its interest in the answers.
    client.config().setOption(ChannelOption.ALLOW_HALF_CLOSURE, true);
    clientAddress = io.fairway.proxy.proxyprotocol.ClientAddress.source(client);
    clientIp = clientAddress.getAddress().getHostAddress().getBytes(StandardCharsets.ISO_8859_1);
    // Over TLS this runs after the handshake (ALPN chose HTTP/1.1): the session is known.
    tls = io.fairway.proxy.tls.TlsInfo.of(client);
    vs.http.clientConnectionOpened(HttpStats.ClientProtocol.HTTP1);
    counted = true;
    armHeaderTimer();
    lastActivity = System.nanoTime();
    idleTimeouts = timeouts;
    long period = Math.max(10, Math.min(1000, timeouts.shortestHttpMillis() / 4));
    // One periodic check per connection instead of a timer per request: arming and cancelling two
    // timers for every request costs more than this at keep-alive request rates.
    ticker =
        client.eventLoop().scheduleAtFixedRate(this::tick, period, period, TimeUnit.MILLISECONDS);
    ctx.fireChannelActive();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (closed) {
      ReferenceCountUtil.release(msg);
      return;
    }
    if (msg == StrictRequestDecoder.TRUNCATED) {
      truncated();
      return;
    }
    if (exchange != null && exchange.requestComplete()) {
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
      keepAliveIdle = false;
      if (!h.http10 && !h.hasHost) {
        // RFC 9112 3.2: a server must answer 400; making one up would hide the client's bug
        // and let Fairway and the backend disagree about the host.
        warnings.warn(
            vs.service().key(),
            "bad request: HTTP/1.1 request without Host",
            "from " + clientAddress);
        sendErrorAndClose(400, "HTTP/1.1 request without Host");
        return;
      }
      exchange = new Exchange(this, vs, options, timeouts, h, draining);
      exchange.start();
    } else if (msg instanceof Malformed m) {
      headerDeadline = 0;
      if (exchange == null) {
        warnings.warn(vs.service().key(), "bad request: " + m.reason(), "from " + clientAddress);
        sendErrorAndClose(m.status(), m.reason());
      } else {
        exchange.abortOnBadBody(m.reason());
      }
    } else if (exchange == null) {
      ReferenceCountUtil.release(msg); // the rest of a request already answered
    } else {
      exchange.onRequestPart(msg);
    }
  }

  /** The client's input ended in the middle of a request, which therefore never completes. */
  private void truncated() {
    Exchange e = exchange;
    if (e != null && !e.requestComplete()) {
      // A backend that already has the head sees its connection close mid-request.
      log.debug(
          "{}: client {} half-closed in the middle of {} {}; closing",
          vs.service().key(),
          clientAddress,
          e.request.method(),
          e.request.target());
      e.end(false);
      close();
    } else if (e != null) {
      // The current request is whole and gets its answer; the incomplete one queued behind it
      // (if it got as far as a head) is dropped.
      log.debug(
          "{}: client {} half-closed in the middle of a pipelined request; answering the complete ones",
          vs.service().key(),
          clientAddress);
      Object last;
      while ((last = queued.peekLast()) != null && last != StrictRequestDecoder.END) {
        queued.pollLast();
        ReferenceCountUtil.release(last);
        if (last instanceof HttpHead) {
          break;
        }
      }
    } else {
      log.debug(
          "{}: client {} half-closed in the middle of a request head; closing",
          vs.service().key(),
          clientAddress);
      close();
    }
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
    if (evt == Drain.EVENT) {
      // Soft stop: the exchange under way finishes and says Connection: close (or, if its head
      // went out already, the connection closes after it); a connection between requests closes
      // now, unless a request has started arriving, which is then answered the same way.
      draining = true;
      if (exchange != null) {
        exchange.noKeepAlive();
      }
      if (!closed && exchange == null && queued.isEmpty() && !sawBytes) {
        close();
      }
      return;
    }
    if (evt instanceof ChannelInputShutdownEvent) {
      // (A half-closed client stays in epoll to be written to: every accepted connection is
      // kept from its accept, see KeptEpollChannels.ACCEPTED.)
      inputShutdown = true;
      if (!closed && exchange == null && queued.isEmpty()) {
        close(); // nothing asked, nothing owed
      }
      return;
    }
    ctx.fireUserEventTriggered(evt);
  }

  // ---- ClientSide, for the exchange in progress

  @Override
  public Channel connection() {
    return client;
  }

  @Override
  public ByteBufAllocator alloc() {
    return client.alloc();
  }

  @Override
  public EventLoop eventLoop() {
    return client.eventLoop();
  }

  @Override
  public InetSocketAddress remoteAddress() {
    return clientAddress;
  }

  @Override
  public String tlsVersion() {
    return tls.version();
  }

  @Override
  public String sni() {
    return tls.sni();
  }

  @Override
  public byte[] clientIp() {
    return clientIp;
  }

  /**
   * The address the client connected to, as a Host value for a request without one (HTTP/1.0): the
   * backend gets HTTP/1.1, where a missing Host is an error.
   */
  @Override
  public byte[] hostHeader() {
    InetSocketAddress a = (InetSocketAddress) client.localAddress();
    String ip = a.getAddress().getHostAddress();
    String v =
        (a.getAddress() instanceof java.net.Inet6Address ? "[" + ip + "]" : ip) + ":" + a.getPort();
    return v.getBytes(StandardCharsets.ISO_8859_1);
  }

  @Override
  public boolean closed() {
    return closed;
  }

  @Override
  public boolean inRead() {
    return inClientRead;
  }

  @Override
  public void notInRead() {
    inClientRead = false;
  }

  @Override
  public void activity() {
    active = true;
  }

  @Override
  public void write(Object msg) {
    client.write(msg, client.voidPromise());
  }

  @Override
  public void flush() {
    client.flush();
  }

  @Override
  public boolean isWritable() {
    return client.isWritable();
  }

  @Override
  public void pauseReading() {
    client.config().setAutoRead(false);
  }

  /** Lets the client be read again, unless it has nothing more to send. */
  @Override
  public void resumeReading() {
    if (!inputShutdown && !client.config().isAutoRead()) {
      client.config().setAutoRead(true);
    }
  }

  @Override
  public void ended(Exchange e) {
    if (exchange == e) {
      exchange = null;
    }
  }

  /** A response is complete: the next request (pipelined, or awaited), or the close. */
  @Override
  public void answered(boolean keepAlive) {
    if (!keepAlive) {
      close();
      return;
    }
    client.flush();
    resumeReading();
    while (!closed && !queued.isEmpty() && !(exchange != null && exchange.requestComplete())) {
      onClientMessage(queued.poll());
    }
    if (!closed && decoder.holding()) {
      // The backend declined a protocol switch: what the client sent after its request is HTTP.
      decoder.resume();
      inClientRead = false;
      if (exchange != null) {
        exchange.flushBackend();
      }
    }
    if (exchange == null && !closed) {
      if (inputShutdown) {
        close(); // every request it sent is answered
      } else {
        sawBytes = false;
        keepAliveIdle = true;
        headerDeadline = System.nanoTime() + timeouts.keepAlive().toNanos();
      }
    }
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    inClientRead = false;
    if (exchange != null) {
      exchange.flushBackend();
    }
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    if (exchange != null) {
      exchange.clientWritabilityChanged(client.isWritable());
    }
    ctx.fireChannelWritabilityChanged();
  }

  /**
   * The backend switched protocols: from here on the connection is a byte tunnel, relayed by {@link
   * Relay} both ways with the L4 relay's backpressure and half-close. What each side sent after its
   * HTTP message (held by the decoders) goes first.
   */
  @Override
  public void startTunnel(Channel b, ProxyBackend rs, Lease l, HttpHead request) {
    log.debug(
        "{}: {} switched protocols for {} {} from {}",
        vs.service().key(),
        rs,
        request.method(),
        request.target(),
        clientAddress);
    tunnel = b;
    // Still in rs.established (since attach): removal closes the tunnel, drain leaves it be.
    // It ends as an L4 connection ends: inactive until it expires.
    client
        .closeFuture()
        .addListener(
            f -> {
              rs.established.remove(client);
              l.close();
              cancel(ticker);
            });
    TunnelSplice.splice(this, client, decoder, b, inputShutdown);
    if (rs.removed() && !options.keepConnectionsOnRemove()) {
      client.close(); // removed while the switch was under way
    }
  }

  // ---- deadlines and closing

  private void armHeaderTimer() {
    headerDeadline = System.nanoTime() + timeouts.requestHead().toNanos();
  }

  /** The first byte of the next request on a kept-alive connection: its head has requestHead. */
  void nextRequestStarted() {
    keepAliveIdle = false;
    armHeaderTimer();
  }

  private void tick() {
    if (closed) {
      return;
    }
    long now = System.nanoTime();
    if (active) {
      active = false;
      lastActivity = now;
      idleTimeouts = vs.timeouts();
    } else if (now - lastActivity
        >= (tunnel != null ? idleTimeouts.tunnel() : idleTimeouts.idle()).toNanos()) {
      idleTimeout();
      return;
    }
    if (tunnel != null) {
      return;
    }
    if (exchange != null && exchange.tick(now)) {
      return;
    }
    if (headerDeadline != 0 && now - headerDeadline >= 0) {
      headerDeadline = 0;
      if (exchange == null) {
        headTimeout();
      }
    }
  }

  private void idleTimeout() {
    if (exchange != null || tunnel != null) {
      warnings.info(
          vs.service().key(),
          (tunnel != null
                  ? "tunnel idle for " + idleTimeouts.tunnel()
                  : "exchange idle for " + idleTimeouts.idle())
              + "; closing",
          "client " + clientAddress);
    }
    closed = true;
    client.close();
    if (tunnel != null) {
      tunnel.close();
    }
  }

  private void headTimeout() {
    if (sawBytes) {
      warnings.info(
          vs.service().key(),
          "client sent no complete request head within " + timeouts.requestHead() + "; 408",
          clientAddress);
      sendErrorAndClose(408, "The request did not arrive in time.");
    } else {
      log.debug(
          "{}: idle client {} closed after {}",
          vs.service().key(),
          clientAddress,
          keepAliveIdle ? timeouts.keepAlive() : timeouts.requestHead());
      close();
    }
  }

  @Override
  public void sendErrorAndClose(int status, String detail) {
    if (closed) {
      return;
    }
    closed = true;
    vs.http.answered(status);
    releaseQueued();
    if (inputShutdown) {
      // Nothing more can arrive, so nothing to linger for.
      client
          .writeAndFlush(ErrorPages.page(status, detail, true))
          .addListener(ChannelFutureListener.CLOSE);
      return;
    }
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

  @Override
  public void close() {
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
    if (counted) {
      counted = false;
      vs.http.clientConnectionClosed(HttpStats.ClientProtocol.HTTP1);
    }
    headerDeadline = 0;
    cancel(ticker);
    if (exchange != null) {
      exchange.end(false);
    }
    releaseQueued();
    ctx.fireChannelInactive();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    log.debug(
        "{}: client {} error: {}", vs.service().key(), clientAddress, TcpFrontend.reason(cause));
    ctx.close();
  }

  private static void cancel(ScheduledFuture<?> f) {
    if (f != null) {
      f.cancel(false);
    }
  }
}
