package io.fairway.daemon.admin;

import io.fairway.daemon.EventHub;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.cookie.Cookie;
import io.netty.handler.codec.http.cookie.CookieHeaderNames;
import io.netty.handler.codec.http.cookie.DefaultCookie;
import io.netty.handler.codec.http.cookie.ServerCookieDecoder;
import io.netty.handler.codec.http.cookie.ServerCookieEncoder;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The admin listener: HTTP/1.1 on Netty, one small event loop of its own (never the data plane's),
 * request heads bounded to 8 KiB, bodies to {@link #MAX_BODY} (413 beyond), and a request that does
 * not arrive complete within the request timeout closed.
 */
public final class AdminHttpServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(AdminHttpServer.class);

  /** The largest request body accepted. */
  public static final int MAX_BODY = 64 * 1024;

  private final EventLoopGroup group;
  private final Channel channel;

  private AdminHttpServer(EventLoopGroup group, Channel channel) {
    this.group = group;
    this.channel = channel;
  }

  /**
   * Binds and starts serving.
   *
   * @param token checked on every mutation (null: every mutation is refused), and on reads too when
   *     {@code tokenForReads}
   * @param requestTimeout how long a client has to send a whole request
   * @throws java.io.IOException the address cannot be bound (in use, not local)
   */
  public static AdminHttpServer start(
      InetSocketAddress address,
      Supplier<AdminToken> token,
      boolean tokenForReads,
      Duration requestTimeout,
      AdminRoutes routes,
      EventHub events)
      throws java.io.IOException {
    return start(
        address, token, tokenForReads, requestTimeout, routes, events, new AdminSessions());
  }

  /**
   * Binds and starts serving, with the status page's read sessions kept in {@code sessions}.
   *
   * @see AdminSessions
   */
  public static AdminHttpServer start(
      InetSocketAddress address,
      Supplier<AdminToken> token,
      boolean tokenForReads,
      Duration requestTimeout,
      AdminRoutes routes,
      EventHub events,
      AdminSessions sessions)
      throws java.io.IOException {
    return start(
        address,
        token,
        tokenForReads,
        requestTimeout,
        routes,
        events,
        sessions,
        AdminHosts.DEFAULT);
  }

  /**
   * Binds and starts serving, answering only requests whose {@code Host} is one of {@code hosts}.
   *
   * @see AdminHosts
   */
  public static AdminHttpServer start(
      InetSocketAddress address,
      Supplier<AdminToken> token,
      boolean tokenForReads,
      Duration requestTimeout,
      AdminRoutes routes,
      EventHub events,
      AdminSessions sessions,
      AdminHosts hosts)
      throws java.io.IOException {
    Objects.requireNonNull(routes);
    Objects.requireNonNull(hosts);
    Objects.requireNonNull(sessions);
    EventLoopGroup group =
        new MultiThreadIoEventLoopGroup(
            1, new DefaultThreadFactory("fairway-admin", true), NioIoHandler.newFactory());
    ServerBootstrap b =
        new ServerBootstrap()
            .group(group)
            .channel(NioServerSocketChannel.class)
            .option(ChannelOption.SO_BACKLOG, 128)
            .childHandler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    ch.pipeline()
                        .addLast(new HttpServerCodec(4096, 8192, 8192))
                        .addLast(new RequestTimeout(requestTimeout))
                        .addLast(new Aggregator())
                        .addLast(
                            new Handler(token, tokenForReads, routes, events, sessions, hosts));
                  }
                });
    var bound = b.bind(address).awaitUninterruptibly();
    if (!bound.isSuccess()) {
      group.shutdownGracefully(0, 0, java.util.concurrent.TimeUnit.MILLISECONDS);
      Throwable c = bound.cause();
      throw new java.io.IOException(c.getMessage() == null ? c.toString() : c.getMessage(), c);
    }
    return new AdminHttpServer(group, bound.channel());
  }

  /** The bound address (with the actual port when 0 was asked for). */
  public InetSocketAddress address() {
    return (InetSocketAddress) channel.localAddress();
  }

  @Override
  public void close() {
    channel.close().syncUninterruptibly();
    group.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
  }

  /** Aggregates bodies up to {@link #MAX_BODY}; a larger one gets the JSON 413 and a close. */
  private static final class Aggregator extends HttpObjectAggregator {
    Aggregator() {
      super(MAX_BODY, true);
    }

    @Override
    protected void handleOversizedMessage(ChannelHandlerContext ctx, HttpMessage oversized) {
      FullHttpResponse r =
          full(AdminResponse.error(413, "request body larger than " + MAX_BODY + " bytes"));
      HttpUtil.setKeepAlive(r, false);
      ctx.writeAndFlush(r).addListener(f -> lingeringClose(ctx));
    }
  }

  /** How long a refused body's rest is read away before the connection is closed regardless. */
  static final Duration LINGER = Duration.ofSeconds(2);

  /**
   * Ends a connection whose client may still be sending (a refused body). A plain close with unread
   * bytes makes the kernel send a reset, and a reset can reach the client before it has read the
   * answer; so the answer is followed by a FIN, the rest of the body is read and dropped (the
   * aggregator discards it), and the connection closes when the client closes or after {@link
   * #LINGER}, whichever is first.
   */
  private static void lingeringClose(ChannelHandlerContext ctx) {
    if (!(ctx.channel() instanceof SocketChannel socket) || !socket.isActive()) {
      ctx.close();
      return;
    }
    socket
        .shutdownOutput()
        .addListener(
            f -> {
              if (!f.isSuccess()) {
                ctx.close();
                return;
              }
              ctx.executor()
                  .schedule(
                      () -> {
                        ctx.close();
                      },
                      LINGER.toNanos(),
                      java.util.concurrent.TimeUnit.NANOSECONDS);
            });
  }

  private static final List<String> SESSION = List.of("api", "v1", "session");

  /** {@code POST /api/v1/session}'s answer. */
  record Session(long expiresInSeconds) {}

  private static final class Handler extends SimpleChannelInboundHandler<FullHttpRequest> {
    private final Supplier<AdminToken> token;
    private final boolean tokenForReads;
    private final AdminRoutes routes;
    private final EventHub events;
    private final AdminSessions sessions;
    private final AdminHosts hosts;

    Handler(
        Supplier<AdminToken> token,
        boolean tokenForReads,
        AdminRoutes routes,
        EventHub events,
        AdminSessions sessions,
        AdminHosts hosts) {
      this.hosts = hosts;
      this.token = token;
      this.tokenForReads = tokenForReads;
      this.routes = routes;
      this.events = events;
      this.sessions = sessions;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
      boolean keepAlive = HttpUtil.isKeepAlive(req);
      if (!req.decoderResult().isSuccess()) {
        send(
            ctx,
            AdminResponse.error(400, "bad request: " + req.decoderResult().cause().getMessage()),
            false);
        return;
      }
      AdminResponse refused = refusedHost(ctx, req);
      if (refused != null) {
        send(ctx, refused, false);
        return;
      }
      RequestTarget target;
      try {
        target = RequestTarget.parse(req.uri());
      } catch (IllegalArgumentException e) {
        send(ctx, AdminResponse.error(400, e.getMessage()), false);
        return;
      }
      List<String> path = target.path();
      AdminToken t = token.get();
      boolean authorized = t != null && t.accepts(req.headers().get(HttpHeaderNames.AUTHORIZATION));
      byte[] body = new byte[req.content().readableBytes()];
      req.content().getBytes(req.content().readerIndex(), body);
      if (path.equals(SESSION)) {
        session(ctx, req, authorized, keepAlive);
        return;
      }
      // A read session (the status page's cookie) lets a browser read; it never authorises a
      // change.
      long session = tokenForReads && !authorized ? sessions.remainingNanos(cookie(ctx, req)) : 0;
      AdminRequest r =
          new AdminRequest(
              req.method().name(), path, target.query(), body, authorized, tokenForReads);
      if (tokenForReads && !authorized && session <= 0) {
        sendLocked(ctx, req, path, keepAlive);
        return;
      }
      routes
          .handle(r)
          .whenComplete(
              (resp, ex) ->
                  ctx.executor().execute(() -> answer(ctx, r, resp, ex, session, keepAlive)));
    }

    /**
     * What a listener that needs the token for reads shows without it: the status page's login form
     * and its assets, and otherwise 401.
     */
    private static void sendLocked(
        ChannelHandlerContext ctx, FullHttpRequest req, List<String> path, boolean keepAlive) {
      boolean get = req.method().equals(HttpMethod.GET) || req.method().equals(HttpMethod.HEAD);
      if (get && path.isEmpty()) {
        send(ctx, StatusPage.locked(), keepAlive); // the form and the script, nothing of the state
      } else if (get
          && path.size() == 2
          && path.get(0).equals("static")
          && StatusPage.ASSETS.contains(path.get(1))) {
        send(ctx, StatusPage.asset(path.get(1)), keepAlive);
      } else {
        send(
            ctx,
            AdminResponse.error(
                401,
                "this admin listener needs 'Authorization: Bearer TOKEN' on every request"
                    + " (a browser: a session from POST /api/v1/session)"),
            keepAlive);
      }
    }

    /** Sends what the routes answered, on the channel's event loop. */
    private void answer(
        ChannelHandlerContext ctx,
        AdminRequest r,
        AdminResponse resp,
        Throwable ex,
        long session,
        boolean keepAlive) {
      if (ex != null) {
        LOG.warn("admin {} /{}: {}", r.method(), String.join("/", r.path()), ex.toString());
        send(ctx, AdminResponse.error(500, "internal error: " + ex.getMessage()), false);
      } else if (resp.eventStream()) {
        stream(ctx, session);
      } else {
        send(ctx, resp, keepAlive);
      }
    }

    /** Opens {@code GET /api/v1/events}: chunked, each event one Server-Sent Event. */
    private void stream(ChannelHandlerContext ctx, long session) {
      HttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
      head.headers()
          .set(HttpHeaderNames.CONTENT_TYPE, "text/event-stream; charset=utf-8")
          .set(HttpHeaderNames.CACHE_CONTROL, "no-store")
          .set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
      ctx.writeAndFlush(head);
      events.subscribe(ctx.channel());
      if (session > 0) {
        // A stream read on a session ends with it; the page reconnects with a renewed one.
        ctx.channel()
            .eventLoop()
            .schedule(
                () -> {
                  ctx.writeAndFlush(io.netty.handler.codec.http.LastHttpContent.EMPTY_LAST_CONTENT)
                      .addListener(ChannelFutureListener.CLOSE);
                },
                session,
                java.util.concurrent.TimeUnit.NANOSECONDS);
      }
    }

    /** The answer to a request with no, several or a foreign {@code Host}; null when it is fine. */
    private @Nullable AdminResponse refusedHost(ChannelHandlerContext ctx, FullHttpRequest req) {
      List<String> given = req.headers().getAll(HttpHeaderNames.HOST);
      if (given.size() != 1) {
        return AdminResponse.error(
            400, "a request needs exactly one Host header, got " + given.size());
      }
      if (!hosts.accepts(given.get(0), (InetSocketAddress) ctx.channel().localAddress())) {
        return AdminResponse.error(
            421,
            "Host '"
                + printable(given.get(0))
                + "' is not this admin listener (its address, localhost, or a name given with"
                + " --admin-host)");
      }
      return null;
    }

    /** A header value fit for a one-line message: at most 100 printable ASCII characters. */
    private static String printable(String s) {
      StringBuilder b = new StringBuilder();
      for (int i = 0; i < s.length() && b.length() < 100; i++) {
        char c = s.charAt(i);
        b.append(c >= ' ' && c <= '~' ? c : '?');
      }
      return b.toString();
    }

    /**
     * {@code POST /api/v1/session} with the token: a read session for this browser, as an HttpOnly,
     * SameSite=Strict cookie named for this port, valid for the sessions' lifetime.
     */
    private void session(
        ChannelHandlerContext ctx, FullHttpRequest req, boolean authorized, boolean keepAlive) {
      if (!req.method().equals(HttpMethod.POST)) {
        send(
            ctx,
            AdminResponse.error(
                405, req.method().name() + " is not allowed on /api/v1/session; use POST"),
            keepAlive);
        return;
      }
      if (!authorized) {
        send(
            ctx,
            AdminResponse.error(
                401,
                "missing or wrong 'Authorization: Bearer TOKEN' (a session is minted only"
                    + " for the token)"),
            keepAlive);
        return;
      }
      long seconds = sessions.lifetime().toSeconds();
      FullHttpResponse r = full(AdminResponse.json(200, new Session(seconds)));
      DefaultCookie c = new DefaultCookie(AdminSessions.cookieName(port(ctx)), sessions.mint());
      c.setHttpOnly(true);
      c.setPath("/");
      c.setMaxAge(seconds);
      c.setSameSite(CookieHeaderNames.SameSite.Strict);
      r.headers().set(HttpHeaderNames.SET_COOKIE, ServerCookieEncoder.STRICT.encode(c));
      HttpUtil.setKeepAlive(r, keepAlive);
      var f = ctx.writeAndFlush(r);
      if (!keepAlive) {
        f.addListener(ChannelFutureListener.CLOSE);
      }
    }

    /** This listener's session cookie in the request, or null. */
    private static @Nullable String cookie(ChannelHandlerContext ctx, FullHttpRequest req) {
      String header = req.headers().get(HttpHeaderNames.COOKIE);
      if (header == null) {
        return null;
      }
      String name = AdminSessions.cookieName(port(ctx));
      try {
        for (Cookie c : ServerCookieDecoder.STRICT.decode(header)) {
          if (c.name().equals(name)) {
            return c.value();
          }
        }
      } catch (RuntimeException e) {
        return null; // a malformed Cookie header is no session
      }
      return null;
    }

    private static int port(ChannelHandlerContext ctx) {
      return ((InetSocketAddress) ctx.channel().localAddress()).getPort();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      // A client that went away mid-answer; nothing to tell anybody.
      LOG.debug("admin connection: {}", cause.toString());
      ctx.close();
    }

    private static void send(ChannelHandlerContext ctx, AdminResponse resp, boolean keepAlive) {
      FullHttpResponse r = full(resp);
      HttpUtil.setKeepAlive(r, keepAlive);
      var f = ctx.writeAndFlush(r);
      if (!keepAlive) {
        f.addListener(ChannelFutureListener.CLOSE);
      }
    }
  }

  /**
   * The status page loads only its own script and style sheet (no inline code, no inline style),
   * talks only to this listener, and may not be framed: a framing page could trick a click on
   * drain.
   */
  static final String CSP =
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:;"
          + " connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

  static FullHttpResponse full(AdminResponse resp) {
    FullHttpResponse r =
        new DefaultFullHttpResponse(
            HttpVersion.HTTP_1_1,
            HttpResponseStatus.valueOf(resp.status()),
            Unpooled.wrappedBuffer(resp.body()));
    r.headers()
        .set(HttpHeaderNames.CONTENT_TYPE, resp.contentType())
        .set(HttpHeaderNames.CONTENT_LENGTH, resp.body().length)
        .set(HttpHeaderNames.CACHE_CONTROL, "no-store")
        .set("X-Content-Type-Options", "nosniff")
        .set(HttpHeaderNames.CONTENT_SECURITY_POLICY, CSP)
        .set("X-Frame-Options", "DENY");
    return r;
  }
}
