package io.fairway.proxy.http2;

import io.fairway.proxy.ProxyOptions;
import io.fairway.proxy.RateLimitedLog;
import io.fairway.proxy.http.H2Flushes;
import io.fairway.proxy.table.HttpStats;
import io.fairway.proxy.table.ProxyService;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
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
 * Turns a client connection into an HTTP/2 one: Netty's frame codec with Fairway's limits and its
 * frame logger ({@link FrameTap}: stream-state rules, refused streams and floods counted), a child
 * channel per stream ({@link H2Stream}), a watcher that counts the connection and its streams, and
 * a {@link Reaper} in front of the codec for the connections it cannot close.
 */
public final class H2Plane {
  private static final Logger log = LoggerFactory.getLogger(H2Plane.class);
  private static final RateLimitedLog warnings = new RateLimitedLog(log, Duration.ofSeconds(10));

  /** SETTINGS_MAX_CONCURRENT_STREAMS, as HAProxy and nginx default to. */
  public static final int MAX_CONCURRENT_STREAMS = 100;

  /** RST_STREAMs a client may send within {@link #RST_WINDOW_SECONDS} (rapid reset). */
  static final int MAX_RST_PER_WINDOW = 200;

  /**
   * RST_STREAMs other than CANCEL Fairway may send within {@link #RST_WINDOW_SECONDS}: streams
   * refused beyond the concurrent limit and malformed requests are resets the client provokes
   * (MadeYouReset, CVE-2025-8671), as costly to Fairway as the ones it sends itself.
   */
  static final int MAX_RST_SENT_PER_WINDOW = 200;

  static final int RST_WINDOW_SECONDS = 30;

  /** Control-frame answers queued for a client that does not read them (SETTINGS/PING floods). */
  static final int MAX_QUEUED_CONTROL_FRAMES = 1000;

  /** DATA frames without data in a row. */
  static final int MAX_EMPTY_DATA_FRAMES = 2;

  /**
   * CONTINUATION frames in a row whose fragment is below 8 KiB (Netty's "small") and which do not
   * end the header block (the 2024 CONTINUATION flood); a header block beyond the header list size
   * is refused whatever its pieces.
   */
  static final int MAX_SMALL_CONTINUATIONS = 16;

  private H2Plane() {}

  /**
   * Adds the HTTP/2 handlers at the end of {@code p}, for a connection that is already active (its
   * preface is sent at once).
   */
  public static void install(
      ChannelPipeline p, ProxyService vs, ProxyOptions options, H2Stats stats) {
    Reaper reaper = new Reaper();
    p.addLast(H2Flushes.handler());
    p.addLast(reaper);
    p.addLast(codec(vs, options, stats, reaper));
    p.addLast(behindCodec(vs, options, stats, reaper));
  }

  /**
   * The handlers that take over a connection upgraded by {@code Upgrade: h2c} (RFC 7540 3.2): the
   * codec answers the HTTP/1.1 request as stream 1 once the 101 went out.
   *
   * @param reaper already in the pipeline, in front of where the codec goes
   */
  static Http2ServerUpgradeCodec upgradeCodec(
      ProxyService vs, ProxyOptions options, H2Stats stats, Reaper reaper) {
    return new Http2ServerUpgradeCodec(
        codec(vs, options, stats, reaper), behindCodec(vs, options, stats, reaper));
  }

  /**
   * Netty's frame codec with Fairway's limits, every one set here rather than left to Netty's
   * defaults, and the stream-state rules it lacks.
   */
  static Http2FrameCodec codec(
      ProxyService vs, ProxyOptions options, H2Stats stats, Reaper reaper) {
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
            .encoderEnforceMaxRstFramesPerWindow(MAX_RST_SENT_PER_WINDOW, RST_WINDOW_SECONDS)
            .encoderEnforceMaxQueuedControlFrames(MAX_QUEUED_CONTROL_FRAMES)
            .decoderEnforceMaxConsecutiveEmptyDataFrames(MAX_EMPTY_DATA_FRAMES)
            .decoderEnforceMaxSmallContinuationFrames(MAX_SMALL_CONTINUATIONS)
            .frameLogger(new FrameTap(guard, stats, vs.service().key(), warnings, reaper))
            .build();
    guard.watch(codec.connection());
    // Netty applies the SETTINGS it sent only once the client acknowledges them: until then (or
    // for ever, from a client that never does) streams would be unlimited. The limit holds from
    // the first frame instead; a client that opened more before our SETTINGS reached it gets
    // REFUSED_STREAM, which it may retry.
    codec.connection().remote().maxActiveStreams(MAX_CONCURRENT_STREAMS);
    return codec;
  }

  /** What follows the codec: a child channel per stream, the idle timeout, the watcher. */
  private static ChannelHandler[] behindCodec(
      ProxyService vs, ProxyOptions options, H2Stats stats, Reaper reaper) {
    long idle = vs.timeouts().idle().toMillis();
    Watch watch = new Watch(vs, stats, reaper);
    return new ChannelHandler[] {
      new Http2MultiplexHandler(
          new ChannelInitializer<Http2StreamChannel>() {
            @Override
            protected void initChannel(Http2StreamChannel ch) {
              watch.streams++; // the child channels run on their connection's event loop
              ch.pipeline().addLast(new H2Stream(vs, options, stats, warnings, ch));
            }
          }),
      new IdleStateHandler(0, 0, idle, TimeUnit.MILLISECONDS),
      watch
    };
  }

  /**
   * Counts the connection and its streams; closes it when idle. What the codec closed it for is
   * counted by {@link FrameTap}, from its GOAWAY.
   */
  private static final class Watch extends ChannelInboundHandlerAdapter {
    private final ProxyService vs;
    private final H2Stats stats;
    private final Reaper reaper;
    private boolean counted;

    /** Streams opened on this connection so far. */
    long streams;

    Watch(ProxyService vs, H2Stats stats, Reaper reaper) {
      this.vs = vs;
      this.stats = stats;
      this.reaper = reaper;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
      stats.connectionOpened();
      vs.http.clientConnectionOpened(HttpStats.ClientProtocol.H2);
      counted = true;
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      if (counted) {
        counted = false;
        stats.connectionClosed(streams);
        vs.http.clientConnectionClosed(HttpStats.ClientProtocol.H2);
      }
      ctx.fireChannelInactive();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
      if (evt instanceof IdleStateEvent) {
        ctx.close(); // the codec says GOAWAY first
        reaper.closeSoon(); // in case the client does not read it
        return;
      }
      ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      if (!(cause instanceof Http2Exception)) {
        log.debug("{}: HTTP/2 client error: {}", vs.service().key(), cause.toString());
        ctx.close();
      }
      // An Http2Exception is told here first; the codec then sends GOAWAY with the error's code
      // and closes. Closing now would send GOAWAY(NO_ERROR) ahead of it.
    }
  }
}
