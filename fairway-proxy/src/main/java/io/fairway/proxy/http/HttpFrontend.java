package io.fairway.proxy.http;

import io.fairway.proxy.Connector;
import io.fairway.proxy.KeptEpollChannels;
import io.fairway.proxy.ProxyOptions;
import io.fairway.proxy.RateLimitedLog;
import io.fairway.proxy.Timeouts;
import io.fairway.proxy.Transport;
import io.fairway.proxy.http.StrictRequestDecoder.Malformed;
import io.fairway.proxy.l4.Relay;
import io.fairway.proxy.l4.TcpFrontend;
import io.fairway.proxy.table.Drain;
import io.fairway.proxy.table.Lease;
import io.fairway.proxy.table.Pick;
import io.fairway.proxy.table.RealServer;
import io.fairway.proxy.table.SlotWaiter;
import io.fairway.proxy.table.VirtualService;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.DuplexChannel;
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
public final class HttpFrontend extends ChannelInboundHandlerAdapter {
  private static final Logger log = LoggerFactory.getLogger(HttpFrontend.class);

  /** What a fault or a flood repeats per request: each kind once per 10 s, with counts. */
  private static final RateLimitedLog warnings =
      new RateLimitedLog(log, java.time.Duration.ofSeconds(10));

  private static final long LINGER_MS = 1000;
  private static final byte[] LAST_CHUNK = "0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1);

  private final VirtualService vs;
  private final ProxyOptions options;

  /** This connection's timeouts: the service's as of the accept. */
  private final Timeouts timeouts;

  private Channel client;
  private StrictRequestDecoder decoder;

  /** The table is stopping softly: finish the exchange under way, then close. */
  private boolean draining;

  /** The client shut down its sending side: answer what it asked, then close. */
  private boolean inputShutdown;

  /** A 101 arrived; the tunnel starts once the backend's current read is passed on. */
  private boolean tunnelPending;

  /** The backend of the tunnel this connection became, or {@code null}. */
  private Channel tunnel;

  private InetSocketAddress clientAddress;
  private byte[] clientIp;
  private boolean closed;

  /**
   * Inside a read of the client: its channelReadComplete flushes the backend, nothing else need.
   */
  private boolean inClientRead;

  // Small first: an idle keep-alive connection holds these; they grow when a request pipelines.
  private final ArrayDeque<Object> queued = new ArrayDeque<>(2);

  /** Deadlines (System.nanoTime) checked by one ticker per connection; 0 = none. */
  private long headerDeadline;

  /** Between requests of a kept-alive connection: headerDeadline is the keep-alive timeout. */
  boolean keepAliveIdle;

  private long responseDeadline;

  /** The request body must be complete by then (System.nanoTime); 0 = no body under way. */
  private long bodyDeadline;

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
  private Timeouts idleTimeouts;

  // The exchange in progress; request == null when there is none.
  private HttpHead request;

  /** When the current request's head arrived (System.nanoTime), and its response's status. */
  private long exchangeStart;

  private int responseStatus;

  /** The request head as the backend gets it, kept until the exchange ends for a retry. */
  private ByteBuf upstreamHead;

  private boolean clientHttp10;
  private boolean clientKeepAlive;
  private String key;

  /** The shard alt this request asks for ({@code alt_header}), or {@link RequestAlt#NONE}. */
  private int askedAlt = RequestAlt.NONE;

  private boolean requestComplete;
  private boolean requestSent;
  private boolean bodyBytes;
  private boolean responseStarted;
  private boolean backendReusable;

  /** The response body is close-delimited and the proxy chunks it for the client. */
  private boolean chunkResponse;

  /**
   * Retries of the current request: one after a dead pooled connection, one after a failing server.
   */
  private boolean retriedPooled;

  private boolean retriedFresh;
  private boolean reusedConnection;

  /** Empty and shared until a connect fails: most requests never retry. */
  private Set<RealServer> tried = Set.of();

  /** The last of {@link #tried} to fail: a 502 after every server failed is counted for it. */
  private RealServer lastFailed;

  /** Body slices and END received before the backend connection exists. */
  private final ArrayDeque<Object> pendingBody = new ArrayDeque<>(2);

  /** The request waiting for a server under its uthreshold ({@link VirtualService#schedule}). */
  private HttpHead waitingForSlot;

  private boolean waitingFresh;

  /** One per connection, not one per request: most requests never queue. */
  private final SlotWaiter slotWaiter = new SlotWait();

  private RealServer server;
  private Lease lease;
  private Channel backend;
  private HttpBackendHandler backendHandler;

  public HttpFrontend(VirtualService vs, ProxyOptions options) {
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
    clientAddress = (InetSocketAddress) client.remoteAddress();
    clientIp = clientAddress.getAddress().getHostAddress().getBytes(StandardCharsets.ISO_8859_1);
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
      startExchange(h);
    } else if (msg instanceof Malformed m) {
      headerDeadline = 0;
      if (request == null) {
        warnings.warn(vs.service().key(), "bad request: " + m.reason(), "from " + clientAddress);
        sendErrorAndClose(m.status(), m.reason());
      } else {
        abortOnBadBody(m.reason());
      }
    } else if (request == null) {
      ReferenceCountUtil.release(msg); // the rest of a request already answered
    } else {
      if (msg == StrictRequestDecoder.END) {
        requestComplete = true;
        bodyDeadline = 0;
        if (request.upgrade) {
          // The decoder holds what follows until the answer; one read's worth at most.
          client.config().setAutoRead(false);
        }
      } else if (bodyDeadline != 0 && timeouts.requestBodyMinRate() > 0) {
        // Every minRate bytes earn the body one more second.
        bodyDeadline +=
            ((ByteBuf) msg).readableBytes() * 1_000_000_000L / timeouts.requestBodyMinRate();
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

  /** The client's input ended in the middle of a request, which therefore never completes. */
  private void truncated() {
    if (request != null && !requestComplete) {
      // A backend that already has the head sees its connection close mid-request.
      log.debug(
          "{}: client {} half-closed in the middle of {} {}; closing",
          vs.service().key(),
          clientAddress,
          request.method(),
          request.target());
      endExchange(false);
      closeClient();
    } else if (request != null) {
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
      closeClient();
    }
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
    if (evt == Drain.EVENT) {
      // Soft stop: the exchange under way finishes and says Connection: close (or, if its head
      // went out already, the connection closes after it); a connection between requests closes
      // now, unless a request has started arriving, which is then answered the same way.
      draining = true;
      clientKeepAlive = false;
      if (!closed && request == null && queued.isEmpty() && !sawBytes) {
        closeClient();
      }
      return;
    }
    if (evt instanceof ChannelInputShutdownEvent) {
      // (A half-closed client stays in epoll to be written to: every accepted connection is
      // kept from its accept, see KeptEpollChannels.ACCEPTED.)
      inputShutdown = true;
      if (!closed && request == null && queued.isEmpty()) {
        closeClient(); // nothing asked, nothing owed
      }
      return;
    }
    ctx.fireUserEventTriggered(evt);
  }

  /** Lets the client be read again, unless it has nothing more to send. */
  private void readClient() {
    if (!inputShutdown && !client.config().isAutoRead()) {
      client.config().setAutoRead(true);
    }
  }

  private void abortOnBadBody(String why) {
    warnings.warn(vs.service().key(), "malformed request body: " + why, "from " + clientAddress);
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
    exchangeStart = System.nanoTime();
    clientHttp10 = h.http10;
    clientKeepAlive = h.keepAlive() && !draining;
    requestComplete = false;
    requestSent = false;
    bodyBytes = false;
    responseStarted = false;
    backendReusable = false;
    chunkResponse = false;
    retriedPooled = false;
    retriedFresh = false;
    tried = Set.of();
    bodyDeadline =
        h.chunked || h.contentLength > 0 ? System.nanoTime() + timeouts.requestBody().toNanos() : 0;
    key = vs.spec().keySource().extract(h);
    askedAlt = RequestAlt.of(vs.spec().selection(), h);
    upstreamHead =
        HeadWriter.request(
            client.alloc(), h, clientIp, h.hasHost ? null : hostHeader(), vs.spec().forwarded());
    acquire(false);
  }

  /**
   * The address the client connected to, as a Host value for a request without one (HTTP/1.0): the
   * backend gets HTTP/1.1, where a missing Host is an error.
   */
  private byte[] hostHeader() {
    InetSocketAddress a = (InetSocketAddress) client.localAddress();
    String ip = a.getAddress().getHostAddress();
    String v =
        (a.getAddress() instanceof java.net.Inet6Address ? "[" + ip + "]" : ip) + ":" + a.getPort();
    return v.getBytes(StandardCharsets.ISO_8859_1);
  }

  /** Chooses a server and gets a connection to it; {@code fresh} skips pooled connections. */
  private void acquire(boolean fresh) {
    Pick p =
        vs.schedule(
            clientAddress,
            key,
            tried,
            askedAlt,
            client.eventLoop(),
            timeouts.connect(),
            slotWaiter);
    if (p instanceof Pick.Queued) {
      waitingForSlot = request;
      waitingFresh = fresh;
      return;
    }
    acquire(p, fresh);
  }

  /** What {@link #waitingForSlot} is told of its turn ({@link VirtualService#schedule}). */
  private final class SlotWait implements SlotWaiter {
    @Override
    public boolean gone() {
      HttpHead waited = waitingForSlot;
      if (closed || request == null || request != waited) {
        waitingForSlot = null;
        return true; // the client went away, or the request ended otherwise
      }
      return false;
    }

    @Override
    public void resume(Pick p) {
      waitingForSlot = null;
      acquire(p, waitingFresh); // or the 503 of no server at all: nothing to wait for any more
    }

    /** No slot within the connect timeout: 503, as when there is no server. */
    @Override
    public void timedOut() {
      HttpHead waited = waitingForSlot;
      waitingForSlot = null;
      if (closed || request == null || request != waited) {
        return;
      }
      warnings.warn(
          vs.service().key(),
          "every server full (uthreshold or max_conns) for " + timeouts.connect(),
          request.method() + " " + request.target() + " from " + clientAddress);
      endExchange(false);
      generated(null, 503);
      sendErrorAndClose(503, "No server is available to handle this request.");
    }
  }

  /** Goes on with the server a {@link Lease} is for, or answers when there is none. */
  private void acquire(Pick p, boolean fresh) {
    if (!(p instanceof Lease l)) {
      boolean none = p != Pick.None.ALL_TRIED;
      warnings.warn(
          vs.service().key(),
          none ? "no destination available" : "every destination failed",
          (none ? "" : tried + " ")
              + request.method()
              + " "
              + request.target()
              + " from "
              + clientAddress);
      endExchange(false);
      generated(none ? null : lastFailed, none ? 503 : 502);
      sendErrorAndClose(
          none ? 503 : 502,
          none
              ? "No server is available to handle this request."
              : "The server could not be reached.");
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
    long connectStart = System.nanoTime();
    ChannelFuture f = connect(rs);
    f.addListener(
        x -> {
          if (closed || request == null || lease != l) {
            l.closeRequest();
            f.channel().close();
            return;
          }
          if (f.isSuccess()) {
            rs.http.connected(System.nanoTime() - connectStart);
            reusedConnection = false;
            inClientRead = false;
            attach(f.channel());
          } else {
            warnings.warn(
                vs.service().key(),
                "connect to " + rs + " failed: " + TcpFrontend.reason(f.cause()),
                null);
            rs.http.connectFailed();
            lastFailed = rs;
            l.closeRequest();
            lease = null;
            server = null;
            tried(rs);
            acquire(fresh);
          }
        });
  }

  private void tried(RealServer rs) {
    if (tried.isEmpty()) {
      tried = new HashSet<>(2);
    }
    tried.add(rs);
  }

  private ChannelFuture connect(RealServer rs) {
    int connectMillis = (int) timeouts.connect().toMillis();
    ResponseDecoder decoder = new ResponseDecoder(options.maxHeaderSize() * 2 + 4096);
    return Connector.connect(
        client.eventLoop(),
        Transport.socketChannel(rs.address.getAddress()),
        ch -> {
          ch.config().setAllocator(Transport.ALLOCATOR);
          ch.config().setConnectTimeoutMillis(connectMillis);
          ch.pipeline()
              .addLast(decoder)
              // Reader idle only: an idle pooled connection neither reads nor writes, and
              // watching writes would cost a promise per write.
              .addLast(
                  new IdleStateHandler(
                      options.backendKeepAlive().toMillis(), 0, 0, TimeUnit.MILLISECONDS));
        },
        new HttpBackendHandler(rs, decoder),
        rs.address);
  }

  private void attach(Channel ch) {
    backend = ch;
    HttpBackendHandler h = (HttpBackendHandler) ch.pipeline().last();
    backendHandler = h;
    h.frontend = this;
    h.decoder.expect(request.isHead(), clientHttp10, request.upgrade);
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
    if (!requestComplete && ch.isWritable()) {
      readClient();
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
      readClient();
    }
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    if (backend != null && responseStarted) {
      backend.config().setAutoRead(client.isWritable());
    }
    ctx.fireChannelWritabilityChanged();
  }

  /** The backend's current read was passed on. */
  void backendReadComplete() {
    if (tunnelPending) {
      startTunnel();
    } else {
      client.flush();
    }
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
      server.http.invalidResponse();
      backendBroken("malformed response from " + server + ": " + m.reason());
    } else {
      ByteBuf b = (ByteBuf) msg;
      if (chunkResponse) {
        client.write(
            HeadWriter.chunkHeader(client.alloc(), b.readableBytes()), client.voidPromise());
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
    if (h.status == 101) { // the decoder lets one through only for a protocol-switch request
      if (!requestComplete) {
        backendBroken(server + " switched protocols before the request body ended");
        return;
      }
      responseStarted = true;
      tunnelPending = true;
      // As it came: its Upgrade and Connection headers are the switch itself.
      client.write(Unpooled.wrappedBuffer(h.bytes, 0, h.length), client.voidPromise());
      return;
    }
    if (h.status < 200) {
      // 100 Continue and friends: passed on, the real response follows. Not to an HTTP/1.0
      // client, which cannot know them (RFC 9110 15.2).
      if (!clientHttp10) {
        client.write(
            HeadWriter.response(client.alloc(), h, false, false, HeadWriter.Connection.UNCHANGED),
            client.voidPromise());
      }
      return;
    }
    responseStarted = true;
    server.http.firstByte(System.nanoTime() - exchangeStart);
    backendReusable = h.keepAlive();
    int code = h.status;
    responseStatus = code;
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
    client.write(
        HeadWriter.response(client.alloc(), h, dechunk, addChunked, c), client.voidPromise());
  }

  private void finishExchange() {
    if (server != null) {
      server.http.completed(responseStatus, System.nanoTime() - exchangeStart);
    }
    boolean reuse = backendReusable && requestSent;
    endExchange(reuse);
    if (!clientKeepAlive) {
      closeClient();
      return;
    }
    client.flush();
    readClient();
    while (!closed && !queued.isEmpty() && !(request != null && requestComplete)) {
      onClientMessage(queued.poll());
    }
    if (!closed && decoder.holding()) {
      // The backend declined a protocol switch: what the client sent after its request is HTTP.
      decoder.resume();
      inClientRead = false;
      if (backend != null) {
        backend.flush();
      }
    }
    if (request == null && !closed) {
      if (inputShutdown) {
        closeClient(); // every request it sent is answered
      } else {
        sawBytes = false;
        keepAliveIdle = true;
        headerDeadline = System.nanoTime() + timeouts.keepAlive().toNanos();
      }
    }
  }

  /**
   * The backend switched protocols: from here on the connection is a byte tunnel, relayed by {@link
   * Relay} both ways with the L4 relay's backpressure and half-close. What each side sent after its
   * HTTP message (held by the decoders) goes first.
   */
  private void startTunnel() {
    tunnelPending = false;
    Channel b = backend;
    RealServer rs = server;
    Lease l = lease;
    log.debug(
        "{}: {} switched protocols for {} {} from {}",
        vs.service().key(),
        rs,
        request.method(),
        request.target(),
        clientAddress);
    backendHandler.frontend = null;
    backend = null;
    backendHandler = null;
    server = null;
    lease = null;
    request = null;
    if (upstreamHead != null) {
      upstreamHead.release();
      upstreamHead = null;
    }
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
    // Half-close both ways, as in L4; either side may then have to be written to after its FIN.
    b.config().setOption(ChannelOption.ALLOW_HALF_CLOSURE, true);
    KeptEpollChannels.keep(b);
    KeptEpollChannels.keep(client);
    ChannelPipeline bp = b.pipeline();
    bp.addLast(new ReadMarker(this), new Relay(client, -1));
    bp.remove(IdleStateHandler.class);
    bp.remove(HttpBackendHandler.class);
    // Removed last, so what it holds (the backend's first tunnelled bytes, which may have come
    // with the 101) goes to the relay, behind the 101.
    bp.remove(ResponseDecoder.class);
    ByteBuf atEof = decoder.takeHeldAtEof();
    ChannelPipeline cp = client.pipeline();
    cp.addLast(new Relay(b, -1));
    cp.remove(this);
    cp.remove(decoder); // likewise: what the client sent after its request goes to the backend
    if (atEof != null) {
      b.write(atEof, b.voidPromise());
    }
    client.flush();
    if (inputShutdown && b instanceof DuplexChannel d) {
      b.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(f -> d.shutdownOutput());
    } else {
      b.flush();
      if (b.isWritable()) {
        client.config().setAutoRead(true);
      }
    }
    b.config().setAutoRead(client.isWritable());
    if (rs.removed() && !options.keepConnectionsOnRemove()) {
      client.close(); // removed while the switch was under way
    }
  }

  /** Ends the current exchange: releases the server, pools or closes the backend connection. */
  private void endExchange(boolean reuseBackend) {
    responseDeadline = 0;
    tunnelPending = false;
    RealServer rs = server;
    Channel b = backend;
    if (b != null) {
      backendHandler.frontend = null;
      if (!b.config().isAutoRead()) {
        b.config().setAutoRead(true);
      }
      if (!(reuseBackend
          && rs != null
          && !rs.removed()
          && rs.pool.offer(b, options.maxIdleBackendConnections()))) {
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
      warnings.warn(
          vs.service().key(),
          rs + " failed mid-response (" + why + "); closing the client",
          clientAddress);
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
      warnings.info(
          vs.service().key(),
          rs
              + " failed before responding ("
              + why
              + "); retrying"
              + (reusedConnection ? " on a fresh connection" : " on another server"),
          request.method() + " " + request.target());
      rs.http.retried();
      if (reusedConnection) {
        retriedPooled = true;
      } else {
        retriedFresh = true;
        tried(rs);
        lastFailed = rs;
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
      // A fresh connection: other pooled connections to a server that just died are likely dead
      // too.
      acquire(true);
      return;
    }
    backendBroken(rs + " failed before responding: " + why);
  }

  private void backendBroken(String why) {
    warnings.warn(vs.service().key(), why, null);
    boolean answered = responseStarted;
    RealServer rs = server;
    endExchange(false);
    if (answered) {
      closeClient();
    } else {
      generated(rs, 502);
      sendErrorAndClose(502, "The server sent no valid response.");
    }
  }

  private void armResponseTimer() {
    responseDeadline = System.nanoTime() + timeouts.firstByte().toNanos();
  }

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
      if (request != null || tunnel != null) {
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
      return;
    }
    if (tunnel != null) {
      return;
    }
    if (responseDeadline != 0 && now - responseDeadline >= 0) {
      responseDeadline = 0;
      if (request != null && !responseStarted) {
        warnings.warn(
            vs.service().key(),
            server + " did not answer within " + timeouts.firstByte(),
            request.method() + " " + request.target());
        generated(server, 504);
        endExchange(false);
        sendErrorAndClose(504, "The server did not answer in time.");
        return;
      }
    }
    if (bodyDeadline != 0 && now - bodyDeadline >= 0) {
      bodyDeadline = 0;
      if (request != null && !requestComplete) {
        warnings.info(
            vs.service().key(),
            "client too slow sending a request body (request_body "
                + timeouts.requestBody()
                + ", min rate "
                + timeouts.requestBodyMinRate()
                + " B/s); 408",
            clientAddress + " " + request.method() + " " + request.target());
        boolean answered = responseStarted;
        endExchange(false); // the backend has half a request: its connection cannot be reused
        if (answered) {
          closeClient();
        } else {
          sendErrorAndClose(408, "The request body did not arrive in time.");
        }
        return;
      }
    }
    if (headerDeadline != 0 && now - headerDeadline >= 0) {
      headerDeadline = 0;
      if (request == null) {
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
          closeClient();
        }
      }
    }
  }

  /** Counts a response the proxy makes up: for the server the request went to, else the service. */
  private void generated(RealServer rs, int status) {
    (rs != null ? rs.http : vs.http).generated(status, System.nanoTime() - exchangeStart);
  }

  private void sendErrorAndClose(int status, String detail) {
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
