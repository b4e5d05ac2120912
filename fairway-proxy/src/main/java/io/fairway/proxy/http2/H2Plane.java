package io.fairway.proxy.http2;

import io.fairway.proxy.ProxyOptions;
import io.fairway.proxy.RateLimitedLog;
import io.fairway.proxy.table.VirtualService;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2FrameCodec;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2ServerUpgradeCodec;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns a client connection into an HTTP/2 one: Netty's frame codec with Fairway's limits, a child
 * channel per stream ({@link H2Stream}), and a watcher that counts what the codec closed the
 * connection for.
 */
public final class H2Plane {
  private static final Logger log = LoggerFactory.getLogger(H2Plane.class);
  private static final RateLimitedLog warnings = new RateLimitedLog(log, Duration.ofSeconds(10));

  /** SETTINGS_MAX_CONCURRENT_STREAMS, as HAProxy and nginx default to. */
  public static final int MAX_CONCURRENT_STREAMS = 100;

  /** RST_STREAMs a client may send within {@link #RST_WINDOW_SECONDS} (rapid reset). */
  static final int MAX_RST_PER_WINDOW = 200;

  static final int RST_WINDOW_SECONDS = 30;

  /** Control-frame answers queued for a client that does not read them (SETTINGS/PING floods). */
  static final int MAX_QUEUED_CONTROL_FRAMES = 1000;

  /** DATA frames without data in a row. */
  static final int MAX_EMPTY_DATA_FRAMES = 2;

  /** CONTINUATION frames below 16 KiB in a row (the 2024 CONTINUATION flood). */
  static final int MAX_SMALL_CONTINUATIONS = 16;

  private H2Plane() {}

  /**
   * Adds the HTTP/2 handlers at the end of {@code p}, for a connection that is already active (its
   * preface is sent at once).
   */
  public static void install(
      ChannelPipeline p, VirtualService vs, ProxyOptions options, H2Stats stats) {
    p.addLast(codec(options));
    p.addLast(behindCodec(vs, options, stats));
  }

  /**
   * The handlers that take over a connection upgraded by {@code Upgrade: h2c} (RFC 7540 3.2): the
   * codec answers the HTTP/1.1 request as stream 1 once the 101 went out.
   */
  static Http2ServerUpgradeCodec upgradeCodec(
      VirtualService vs, ProxyOptions options, H2Stats stats) {
    return new Http2ServerUpgradeCodec(codec(options), behindCodec(vs, options, stats));
  }

  /** Netty's frame codec with Fairway's limits and the stream-state rules it lacks. */
  static Http2FrameCodec codec(ProxyOptions options) {
    Http2Settings settings =
        Http2Settings.defaultSettings()
            .maxConcurrentStreams(MAX_CONCURRENT_STREAMS)
            .maxHeaderListSize(options.maxHeaderSize());
    StreamStateGuard guard = new StreamStateGuard();
    Http2FrameCodec codec =
        Http2FrameCodecBuilder.forServer()
            .initialSettings(settings)
            .validateHeaders(true)
            .decoderEnforceMaxRstFramesPerWindow(MAX_RST_PER_WINDOW, RST_WINDOW_SECONDS)
            .encoderEnforceMaxQueuedControlFrames(MAX_QUEUED_CONTROL_FRAMES)
            .decoderEnforceMaxConsecutiveEmptyDataFrames(MAX_EMPTY_DATA_FRAMES)
            .decoderEnforceMaxSmallContinuationFrames(MAX_SMALL_CONTINUATIONS)
            .frameLogger(guard)
            .build();
    guard.watch(codec.connection());
    return codec;
  }

  /** What follows the codec: a child channel per stream, the idle timeout, the watcher. */
  private static ChannelHandler[] behindCodec(
      VirtualService vs, ProxyOptions options, H2Stats stats) {
    long idle = vs.timeouts().idle().toMillis();
    return new ChannelHandler[] {
      new Http2MultiplexHandler(
          new ChannelInitializer<Http2StreamChannel>() {
            @Override
            protected void initChannel(Http2StreamChannel ch) {
              ch.pipeline().addLast(new H2Stream(vs, options, stats, warnings));
            }
          }),
      new IdleStateHandler(0, 0, idle, TimeUnit.MILLISECONDS),
      new Watch(vs, stats)
    };
  }

  /** Counts the connection and what the codec closed it for; closes it when idle. */
  private static final class Watch extends ChannelInboundHandlerAdapter {
    private final VirtualService vs;
    private final H2Stats stats;
    private boolean counted;

    Watch(VirtualService vs, H2Stats stats) {
      this.vs = vs;
      this.stats = stats;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
      stats.connectionOpened();
      counted = true;
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      if (counted) {
        counted = false;
        stats.connectionClosed();
      }
      ctx.fireChannelInactive();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
      if (evt instanceof IdleStateEvent) {
        ctx.close(); // the codec says GOAWAY first
        return;
      }
      ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      if (!(cause instanceof Http2Exception)) {
        log.debug("{}: HTTP/2 client error: {}", vs.service().key(), cause.toString());
        ctx.close();
        return;
      }
      H2Stats.Flood f = classify(cause);
      stats.flood(f);
      warnings.warn(
          vs.service().key(),
          "HTTP/2 connection closed (" + f + "): " + cause.getMessage(),
          "from " + ctx.channel().remoteAddress());
      // No close here: the codec tells this first, then sends GOAWAY with the error's code and
      // closes; closing now would send GOAWAY(NO_ERROR) ahead of it.
    }
  }

  /** What a connection error of the codec was, by its error code and message. */
  static H2Stats.Flood classify(Throwable cause) {
    String m = String.valueOf(cause.getMessage());
    if (m.contains("RST frames")) {
      return H2Stats.Flood.RAPID_RESET;
    }
    if (m.contains("control frames")) {
      return H2Stats.Flood.CONTROL_FRAMES;
    }
    if (m.contains("continuation") || m.contains("Header size exceeded")) {
      return H2Stats.Flood.HEADER_LIST;
    }
    if (m.contains("empty data frames")) {
      return H2Stats.Flood.EMPTY_FRAMES;
    }
    if (cause instanceof Http2Exception e && e.error() == Http2Error.REFUSED_STREAM
        || m.contains("Maximum active streams")) {
      return H2Stats.Flood.TOO_MANY_STREAMS;
    }
    return H2Stats.Flood.PROTOCOL;
  }
}
