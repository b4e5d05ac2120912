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
import io.netty.util.ReferenceCountUtil;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
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
 *
 * <p>What is not about the order of requests has its own class: the timeouts ({@link
 * ConnectionClock}), the queue of pipelined requests ({@link PipelinedRequests}), who the client is
 * ({@link ClientPeer}), the close after an error page ({@link LingeringClose}) and the switch to a
 * tunnel ({@link TunnelSplice}).
 */
public final class HttpFrontend extends ChannelInboundHandlerAdapter implements ClientSide {
  static final Logger log = LoggerFactory.getLogger(HttpFrontend.class);

  /** What a fault or a flood repeats per request: each kind once per 10 s, with counts. */
  static final RateLimitedLog warnings = new RateLimitedLog(log, Duration.ofSeconds(10));

  private final ProxyService vs;
  private final ProxyOptions options;

  /** This connection's timeouts: the service's as of the accept. */
  private final ServiceTimeouts timeouts;

  private final Channel client;
  private final StrictRequestDecoder decoder;

  /** The table is stopping softly: finish the exchange under way, then close. */
  private boolean draining;

  /** The client shut down its sending side: answer what it asked, then close. */
  private boolean inputShutdown;

  /** The backend of the tunnel this connection became, or {@code null}. */
  @Nullable Channel tunnel;

  private ClientPeer peer = ClientPeer.NONE;
  private boolean closed;

  /** In the service's open HTTP/1.1 connections (from channelActive to channelInactive). */
  private boolean counted;

  /**
   * Inside a read of the client: its channelReadComplete flushes the backend, nothing else need.
   */
  private boolean inClientRead;

  private final PipelinedRequests queued = new PipelinedRequests();
  private final ConnectionClock clock;

  /** The request in progress, or {@code null}. */
  @Nullable Exchange exchange;

  /**
   * @param client the client connection, whose pipeline this frontend ends
   * @param decoder the request decoder in front of it in that pipeline
   */
  public HttpFrontend(
      ProxyService vs, ProxyOptions options, Channel client, StrictRequestDecoder decoder) {
    this.vs = vs;
    this.options = options;
    this.client = client;
    this.decoder = decoder;
    this.timeouts = vs.timeouts();
    this.clock = new ConnectionClock(this, vs, timeouts);
  }

  /** Notes that the client sent bytes, before the decoder sees them. */
  public static final class ReadMarker extends ChannelInboundHandlerAdapter {
    private final HttpFrontend frontend;

    public ReadMarker(HttpFrontend frontend) {
      this.frontend = frontend;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      frontend.clock.bytesArrived();
      ctx.fireChannelRead(msg);
    }
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    // A FIN from the client ends its requests, not its interest in the answers.
    client.config().setOption(ChannelOption.ALLOW_HALF_CLOSURE, true);
    // Over TLS this runs after the handshake (ALPN chose HTTP/1.1): the session is known.
    peer = ClientPeer.of(client);
    vs.http.clientConnectionOpened(HttpStats.ClientProtocol.HTTP1);
    counted = true;
    clock.start(client);
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
      clock.headArrived();
      if (!h.http10 && !h.hasHost) {
        // RFC 9112 3.2: a server must answer 400; making one up would hide the client's bug
        // and let Fairway and the backend disagree about the host.
        warnings.warn(
            vs.service().key(),
            "bad request: HTTP/1.1 request without Host",
            "from " + peer.address());
        sendErrorAndClose(400, "HTTP/1.1 request without Host");
        return;
      }
      exchange = new Exchange(this, vs, options, timeouts, h, draining);
      exchange.start();
    } else if (msg instanceof Malformed m) {
      clock.headRefused();
      if (exchange == null) {
        warnings.warn(vs.service().key(), "bad request: " + m.reason(), "from " + peer.address());
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
          peer.address(),
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
          peer.address());
      queued.dropIncomplete();
    } else {
      log.debug(
          "{}: client {} half-closed in the middle of a request head; closing",
          vs.service().key(),
          peer.address());
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
      if (!closed && exchange == null && queued.isEmpty() && !clock.sawBytes()) {
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
    return Objects.requireNonNull(peer.address(), "exchanges start once the connection is active");
  }

  @Override
  public @Nullable String tlsVersion() {
    return peer.tls().version();
  }

  @Override
  public @Nullable String sni() {
    return peer.tls().sni();
  }

  @Override
  public byte[] clientIp() {
    return Objects.requireNonNull(peer.ip(), "exchanges start once the connection is active");
  }

  @Override
  public byte[] hostHeader() {
    return ClientPeer.hostHeader(client);
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
    clock.activity();
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
        clock.awaitNextRequest();
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
        peer.address());
    tunnel = b;
    // Still in rs.established (since attach): removal closes the tunnel, drain leaves it be.
    // It ends as an L4 connection ends: inactive until it expires.
    client
        .closeFuture()
        .addListener(
            f -> {
              rs.established.remove(client);
              l.close();
              clock.cancelTicker();
            });
    TunnelSplice.splice(this, client, decoder, b, inputShutdown);
    if (rs.removed() && !options.keepConnectionsOnRemove()) {
      client.close(); // removed while the switch was under way
    }
  }

  // ---- closing

  /** The connection timed out idle: closed now, with its tunnel if it became one. */
  void closeNow() {
    closed = true;
    client.close();
    if (tunnel != null) {
      tunnel.close();
    }
  }

  @Override
  public void sendErrorAndClose(int status, String detail) {
    if (closed) {
      return;
    }
    closed = true;
    vs.http.answered(status);
    queued.release();
    LingeringClose.send(client, ErrorPages.page(status, detail, true), inputShutdown);
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    client.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
    queued.release();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    closed = true;
    if (counted) {
      counted = false;
      vs.http.clientConnectionClosed(HttpStats.ClientProtocol.HTTP1);
    }
    clock.stop();
    if (exchange != null) {
      exchange.end(false);
    }
    queued.release();
    ctx.fireChannelInactive();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    log.debug(
        "{}: client {} error: {}", vs.service().key(), peer.address(), TcpFrontend.reason(cause));
    ctx.close();
  }
}
