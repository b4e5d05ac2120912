package io.fairway.proxy.http2;

import io.fairway.proxy.RateLimitedLog;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2FrameLogger;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.logging.LogLevel;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * The one hook Netty's HTTP/2 codec offers into every frame, both ways: its frame logger (logging
 * as Netty's does, at TRACE). Through it
 *
 * <ul>
 *   <li>the client's HEADERS and RST_STREAM reach the {@link StreamStateGuard} before the decoder
 *       acts on them;
 *   <li>each RST_STREAM REFUSED_STREAM Fairway sends (a stream beyond
 *       SETTINGS_MAX_CONCURRENT_STREAMS) is counted;
 *   <li>the GOAWAY with an error that ends a connection is counted by kind and logged, and the
 *       connection is closed for good shortly after ({@link Reaper}).
 * </ul>
 *
 * <p>The GOAWAY is where every connection error shows, whichever side of the codec found it: the
 * limits of Netty's encoder (control frames queued, RST_STREAMs sent) are not passed to the
 * handlers behind the codec as exceptions, only its decoder's are. Its debug data is the error's
 * message, which tells the limits apart.
 */
final class FrameTap extends Http2FrameLogger {
  private final StreamStateGuard guard;
  private final H2Stats stats;
  private final Object service;
  private final RateLimitedLog warnings;
  private final Reaper reaper;
  private boolean counted;

  FrameTap(
      StreamStateGuard guard,
      H2Stats stats,
      Object service,
      RateLimitedLog warnings,
      Reaper reaper) {
    super(LogLevel.TRACE, FrameTap.class);
    this.guard = guard;
    this.stats = stats;
    this.service = service;
    this.warnings = warnings;
    this.reaper = reaper;
  }

  @Override
  public void logHeaders(
      Direction direction,
      ChannelHandlerContext ctx,
      int streamId,
      Http2Headers headers,
      int padding,
      boolean endStream) {
    if (direction == Direction.INBOUND) {
      guard.inboundHeaders(streamId);
    }
    super.logHeaders(direction, ctx, streamId, headers, padding, endStream);
  }

  @Override
  public void logHeaders(
      Direction direction,
      ChannelHandlerContext ctx,
      int streamId,
      Http2Headers headers,
      int streamDependency,
      short weight,
      boolean exclusive,
      int padding,
      boolean endStream) {
    if (direction == Direction.INBOUND) {
      guard.inboundHeaders(streamId);
    }
    super.logHeaders(
        direction, ctx, streamId, headers, streamDependency, weight, exclusive, padding, endStream);
  }

  @Override
  public void logRstStream(
      Direction direction, ChannelHandlerContext ctx, int streamId, long errorCode) {
    if (direction == Direction.INBOUND) {
      guard.inboundReset(streamId);
    } else if (errorCode == Http2Error.REFUSED_STREAM.code()) {
      stats.countRefused();
    }
    super.logRstStream(direction, ctx, streamId, errorCode);
  }

  @Override
  public void logGoAway(
      Direction direction,
      ChannelHandlerContext ctx,
      int lastStreamId,
      long errorCode,
      ByteBuf debugData) {
    if (direction == Direction.OUTBOUND && errorCode != Http2Error.NO_ERROR.code() && !counted) {
      counted = true; // a connection ends once, though its GOAWAY may be sent again
      String why =
          debugData.toString(
              debugData.readerIndex(), debugData.readableBytes(), StandardCharsets.UTF_8);
      H2Stats.Flood f = classify(why);
      stats.flood(f);
      warnings.warn(
          service,
          "HTTP/2 connection closed (" + f.label() + "): " + why,
          "from " + ctx.channel().remoteAddress());
      reaper.closeSoon();
    }
    super.logGoAway(direction, ctx, lastStreamId, errorCode, debugData);
  }

  /**
   * What a connection error was, by its message (Netty's, which the flood tests pin: a Netty that
   * words them otherwise fails those tests rather than miscounting quietly).
   */
  static H2Stats.Flood classify(String message) {
    String m = message.toLowerCase(Locale.ROOT);
    if (m.contains("rst frames") && m.contains("within")) {
      return H2Stats.Flood.RESETS_SENT; // the encoder's limit: RST_STREAMs Fairway sent
    }
    if (m.contains("rst frames")) {
      return H2Stats.Flood.RAPID_RESET; // the decoder's: RST_STREAMs the client sent
    }
    if (m.contains("control frames")) {
      return H2Stats.Flood.CONTROL_FRAMES;
    }
    if (m.contains("continuation") || m.contains("header size exceeded")) {
      return H2Stats.Flood.CONTINUATION;
    }
    if (m.contains("empty data frames")) {
      return H2Stats.Flood.EMPTY_FRAMES;
    }
    return H2Stats.Flood.PROTOCOL;
  }
}
