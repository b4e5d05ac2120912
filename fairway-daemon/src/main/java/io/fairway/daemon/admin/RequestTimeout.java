package io.fairway.daemon.admin;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.concurrent.ScheduledFuture;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Closes a connection whose next request does not arrive complete in time: from connect, and again
 * from the end of each response (keep-alive), until the request's last byte. A slow or half-sent
 * request head costs one timer and is closed; it never holds up anybody else, since Netty reads
 * every connection without blocking. A streaming response (the event stream) never ends, so it is
 * not timed once its request was read.
 */
final class RequestTimeout extends ChannelDuplexHandler {
  private final long nanos;
  private @Nullable ScheduledFuture<?> timer;

  RequestTimeout(Duration timeout) {
    this.nanos = timeout.toNanos();
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    if (ctx.channel().isActive()) {
      arm(ctx);
    }
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    arm(ctx);
    ctx.fireChannelActive();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (msg instanceof LastHttpContent) {
      cancel();
    }
    ctx.fireChannelRead(msg);
  }

  @Override
  public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
    if (msg instanceof LastHttpContent) {
      promise.addListener(
          f -> {
            if (f.isSuccess() && ctx.channel().isActive()) {
              arm(ctx);
            }
          });
    }
    ctx.write(msg, promise);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    cancel();
    ctx.fireChannelInactive();
  }

  private void arm(ChannelHandlerContext ctx) {
    cancel();
    timer =
        ctx.executor()
            .schedule(
                () -> {
                  ctx.close();
                },
                nanos,
                TimeUnit.NANOSECONDS);
  }

  private void cancel() {
    if (timer != null) {
      timer.cancel(false);
      timer = null;
    }
  }
}
