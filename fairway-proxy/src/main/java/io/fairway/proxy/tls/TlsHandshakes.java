package io.fairway.proxy.tls;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.SniCompletionEvent;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.handler.ssl.SslHandshakeTimeoutException;
import java.nio.channels.ClosedChannelException;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Follows one connection's handshake, behind the {@link ServerTls#newHandler SNI handler}: counts
 * how it ended and, for an L4 listener, adds the relay only once it succeeded, so a client that
 * never completes one costs no backend connection.
 */
public final class TlsHandshakes extends ChannelInboundHandlerAdapter {
  private final TlsStats stats;
  private final @Nullable Supplier<ChannelHandler> afterHandshake;
  private boolean done;

  /**
   * @param afterHandshake the handler to add (and tell the channel is active) once the handshake
   *     succeeded; null when the next handlers are there already (HTTP)
   */
  public TlsHandshakes(TlsStats stats, @Nullable Supplier<ChannelHandler> afterHandshake) {
    this.stats = stats;
    this.afterHandshake = afterHandshake;
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    if (afterHandshake == null) {
      ctx.fireChannelActive();
    }
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
    if (evt instanceof SslHandshakeCompletionEvent e) {
      if (e.isSuccess()) {
        succeeded(ctx);
      } else {
        failed(ctx, e.cause());
      }
    } else if (evt instanceof SniCompletionEvent e && !e.isSuccess()) {
      failed(ctx, e.cause());
    }
    ctx.fireUserEventTriggered(evt);
  }

  private void succeeded(ChannelHandlerContext ctx) {
    if (done) {
      return;
    }
    done = true;
    stats.succeeded();
    if (afterHandshake != null) {
      ctx.channel().config().setAutoRead(false); // the relay turns it on once it is connected
      ctx.pipeline().addAfter(ctx.name(), null, afterHandshake.get());
      ctx.fireChannelActive();
    }
  }

  private void failed(ChannelHandlerContext ctx, Throwable cause) {
    if (done) {
      return;
    }
    done = true;
    stats.failed(
        cause instanceof SslHandshakeTimeoutException
            ? TlsStats.Failure.TIMEOUT
            : cause instanceof ClosedChannelException
                ? TlsStats.Failure.CLOSED
                : TlsStats.Failure.PROTOCOL);
    ctx.close();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (!done) {
      failed(ctx, cause);
      return;
    }
    ctx.fireExceptionCaught(cause);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    if (!done) {
      done = true;
      stats.failed(TlsStats.Failure.CLOSED);
    }
    ctx.fireChannelInactive();
  }

  /** Whether this connection came in over TLS (its requests are https). */
  public static boolean isTls(io.netty.channel.Channel ch) {
    return ch.pipeline().get(TlsHandshakes.class) != null;
  }
}
