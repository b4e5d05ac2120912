package io.fairway.proxy.http2;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Sits in front of the HTTP/2 codec and sees its connection closed properly: with what the codec
 * wrote flushed first, and for good a little after Fairway gave up on it.
 *
 * <p>Netty's limits on what Fairway sends (RST_STREAMs, queued control frames) write their GOAWAY
 * and close the connection at once, from the codec's context: without a flush here the GOAWAY is
 * dropped unsent; a close that reaches this handler waits until what was written before it is out.
 * And the codec's own close waits for its GOAWAY to be written: a client that stopped reading (the
 * point of a PING or SETTINGS flood) leaves that write pending, and the connection open, for as
 * long as it likes. This handler's close goes straight to the socket; the grace lets a client that
 * does read get the GOAWAY first (the codec then closes sooner itself).
 */
final class Reaper extends ChannelOutboundHandlerAdapter {
  /** From giving up to closing the socket regardless. */
  static final long GRACE_MILLIS = 1000;

  private @Nullable ChannelHandlerContext ctx;
  private boolean armed;

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    this.ctx = ctx;
  }

  /**
   * Closes once what was written before is out: a flush alone is not enough where the transport
   * writes asynchronously (io_uring), the close would overtake it.
   */
  @Override
  public void close(ChannelHandlerContext ctx, ChannelPromise promise) {
    if (!ctx.channel().isActive()) {
      ctx.close(promise);
      return;
    }
    ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(f -> ctx.close(promise));
  }

  /** Closes the connection after {@link #GRACE_MILLIS} unless it is closed by then. */
  void closeSoon() {
    if (ctx == null || armed) {
      return;
    }
    armed = true;
    ChannelHandlerContext c = ctx;
    c.executor()
        .schedule(
            () -> {
              if (c.channel().isOpen()) {
                c.close();
              }
            },
            GRACE_MILLIS,
            TimeUnit.MILLISECONDS);
  }
}
