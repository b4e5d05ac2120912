package io.fairway.proxy.http;

import io.fairway.proxy.Connector;
import io.fairway.proxy.ProxyOptions;
import io.fairway.proxy.ServiceTimeouts;
import io.fairway.proxy.Transport;
import io.fairway.proxy.table.ProxyBackend;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http2.DefaultHttp2WindowUpdateFrame;
import io.netty.handler.codec.http2.Http2FrameCodec;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2GoAwayFrame;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.http2.Http2StreamChannelBootstrap;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * One multiplexed HTTP/2 connection to a real server ({@code http2}), on one event loop: h2 by ALPN
 * over the server's {@code tls { }}, h2c by prior knowledge without. Each exchange that goes to the
 * server gets a stream of it ({@link #stream}), whose pipeline maps the exchange's request to
 * frames ({@link H2RequestWriter}) and the response back ({@link H2ResponseReader}), so the
 * exchange drives it as it drives a pooled HTTP/1.1 connection.
 *
 * <p>Why one per loop: an exchange and its backend stream must share a thread, as an exchange and
 * its pooled connection do, and one connection per loop multiplexes every request of that loop.
 * Streams beyond the server's SETTINGS_MAX_CONCURRENT_STREAMS wait in the codec for a slot (Netty's
 * buffering encoder), not in a second connection.
 */
final class H2Link {
  /** The window per stream: what a backend may send ahead of its client on one stream. */
  private static final int WINDOW = 65_535;

  /** The connection's window: what all its streams together may have in flight toward Fairway. */
  private static final int CONNECTION_WINDOW = 1 << 20;

  private final Channel parent;
  private final EventLoop loop;
  private final Promise<Channel> ready;
  private boolean goingAway;

  private H2Link(Channel parent, EventLoop loop, Promise<Channel> ready) {
    this.parent = parent;
    this.loop = loop;
    this.ready = ready;
  }

  /** Connects to {@code rs} on {@code loop}; streams asked for before it is up wait for it. */
  static H2Link open(
      ProxyBackend rs,
      EventLoop loop,
      ProxyOptions options,
      ServiceTimeouts timeouts,
      Supplier<SslHandler> tls) {
    int connectMillis = (int) timeouts.connect().toMillis();
    SslHandler[] ssl = new SslHandler[1];
    Watch watch = new Watch();
    ChannelFuture f =
        Connector.connect(
            loop,
            Transport.socketChannel(rs.address.getAddress()),
            ch -> {
              ch.config().setAllocator(Transport.ALLOCATOR);
              ch.config().setConnectTimeoutMillis(connectMillis);
              // First: it sees every byte the server sends, whichever stream it is for.
              ch.pipeline()
                  .addLast(
                      new IdleStateHandler(
                          options.backendKeepAlive().toMillis(), 0, 0, TimeUnit.MILLISECONDS));
              ssl[0] = tls.get();
              if (ssl[0] != null) {
                ch.pipeline().addLast(ssl[0]);
              }
              ch.pipeline()
                  .addLast(H2Flushes.handler())
                  .addLast(codec(options))
                  .addLast(new Http2MultiplexHandler(new RefusePush()));
            },
            watch,
            rs.address);
    H2Link link = new H2Link(f.channel(), loop, loop.newPromise());
    watch.link = link;
    long start = System.nanoTime();
    f.addListener(
        c -> {
          if (!c.isSuccess()) {
            link.ready.tryFailure(c.cause());
          } else if (ssl[0] == null) {
            rs.http.connected(System.nanoTime() - start);
            link.up();
          } else {
            ssl[0].handshakeFuture().addListener(h -> link.handshaken(ssl[0], h, rs, start));
          }
        });
    return link;
  }

  private void handshaken(SslHandler ssl, Future<?> h, ProxyBackend rs, long start) {
    if (!h.isSuccess()) {
      ready.tryFailure(h.cause());
    } else if (!ApplicationProtocolNames.HTTP_2.equals(ssl.applicationProtocol())) {
      ready.tryFailure(new IllegalStateException("the server did not agree to h2 by ALPN"));
      parent.close();
    } else {
      rs.http.connected(System.nanoTime() - start);
      up();
    }
  }

  /**
   * The connection is usable: its window grows to {@link #CONNECTION_WINDOW}, so streams share more
   * than one stream's window, and the waiting streams are opened.
   */
  private void up() {
    parent.writeAndFlush(new DefaultHttp2WindowUpdateFrame(CONNECTION_WINDOW - WINDOW));
    ready.trySuccess(parent);
  }

  private static Http2FrameCodec codec(ProxyOptions options) {
    Http2Settings settings =
        Http2Settings.defaultSettings()
            .pushEnabled(false)
            .initialWindowSize(WINDOW)
            .maxHeaderListSize(options.maxHeaderSize() * 2L + 4096);
    return Http2FrameCodecBuilder.forClient()
        .initialSettings(settings)
        .validateHeaders(true)
        .encoderEnforceMaxConcurrentStreams(true)
        .build();
  }

  /** Whether new streams may go on this connection: not closed, no GOAWAY received. */
  boolean usable() {
    return !goingAway && (parent.isActive() || !ready.isDone()) && !parent.closeFuture().isDone();
  }

  /**
   * A new stream, its pipeline made by {@code init}; fails as a connect does when the connection
   * cannot be made.
   */
  Future<Http2StreamChannel> stream(ChannelHandler init) {
    // Not the channel's loop: the Connector registers it in a task, later than this call.
    Promise<Http2StreamChannel> p = loop.newPromise();
    ready.addListener(
        r -> {
          if (r.isSuccess()) {
            new Http2StreamChannelBootstrap(parent).handler(init).open(p);
          } else {
            p.tryFailure(r.cause());
          }
        });
    return p;
  }

  void close() {
    parent.close();
  }

  /** The connection's own events: GOAWAY (no new streams), idle without streams, errors. */
  private static final class Watch extends ChannelInboundHandlerAdapter {
    /** Set as the connect starts, on the loop: before anything is read, not before a close. */
    @Nullable H2Link link;

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      if (msg instanceof Http2GoAwayFrame) {
        // The streams above its last id were told by the multiplexer.
        Objects.requireNonNull(link, "set before the first read").goingAway = true;
      }
      ReferenceCountUtil.release(msg);
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
      if (evt instanceof IdleStateEvent) {
        Http2FrameCodec c = ctx.pipeline().get(Http2FrameCodec.class);
        if (c == null || c.connection().numActiveStreams() == 0) {
          ctx.close();
        }
      }
      ReferenceCountUtil.release(evt);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      if (link != null) {
        link.ready.tryFailure(new IllegalStateException("connection closed"));
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      ctx.close();
    }
  }

  /** Push is off in our SETTINGS; a stream the server opens anyway is closed. */
  @ChannelHandler.Sharable
  private static final class RefusePush extends ChannelInboundHandlerAdapter {
    @Override
    public void channelActive(ChannelHandlerContext ctx) {
      ctx.close();
    }
  }
}
