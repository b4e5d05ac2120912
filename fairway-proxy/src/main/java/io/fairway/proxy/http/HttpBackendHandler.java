package io.fairway.proxy.http;

import io.fairway.proxy.l4.TcpFrontend;
import io.fairway.proxy.table.ProxyBackend;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.ReferenceCountUtil;
import org.jspecify.annotations.Nullable;

/**
 * The end of a pooled backend connection: hands what the backend sends to the exchange currently
 * using the connection, and closes the connection when it misbehaves while idle. A protocol switch
 * (101) removes it: the connection then belongs to the client's tunnel. On an HTTP/2 backend it
 * ends a stream's pipeline instead ({@link H2Link}), one exchange long.
 */
final class HttpBackendHandler extends ChannelInboundHandlerAdapter {
  private final ProxyBackend server;

  /** This connection's response decoder, told by each exchange what it asked for. */
  final ResponseExpectation decoder;

  /** The exchange using this connection, {@code null} while it sits idle in the pool. */
  @Nullable Exchange exchange;

  HttpBackendHandler(ProxyBackend server, ResponseExpectation decoder) {
    this.server = server;
    this.decoder = decoder;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    Exchange f = exchange;
    if (f == null) {
      // Nobody asked: a backend talking on an idle keep-alive connection is out of sync.
      ReferenceCountUtil.release(msg);
      ctx.close();
      return;
    }
    f.onBackendMessage(msg);
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    Exchange f = exchange;
    if (f != null) {
      f.backendReadComplete();
    }
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    Exchange f = exchange;
    if (f != null) {
      f.backendWritabilityChanged(ctx.channel().isWritable());
    }
    ctx.fireChannelWritabilityChanged();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    BackendPool.of(server).remove(ctx.channel());
    Exchange f = exchange;
    exchange = null;
    if (f != null) {
      server.http.backendReset();
      f.backendFailed("backend closed the connection");
    }
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    Exchange f = exchange;
    exchange = null;
    if (f != null) {
      server.http.backendReset();
      if (cause instanceof H2ResponseReader.Refused r) {
        f.backendRefused(r.reason);
      } else {
        f.backendFailed(TcpFrontend.reason(cause));
      }
    }
    ctx.close();
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
    if (evt instanceof IdleStateEvent && exchange == null) {
      ctx.close();
    } else {
      ctx.fireUserEventTriggered(evt);
    }
  }
}
