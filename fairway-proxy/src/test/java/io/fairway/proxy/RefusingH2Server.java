package io.fairway.proxy;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http2.DefaultHttp2ResetFrame;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.util.ReferenceCountUtil;
import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicInteger;

/** An h2c server that answers every stream with RST_STREAM REFUSED_STREAM, and counts them. */
final class RefusingH2Server implements AutoCloseable {
  private final EventLoopGroup group =
      new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
  private final Channel server;
  private final AtomicInteger refused = new AtomicInteger();

  RefusingH2Server() throws InterruptedException {
    server =
        new ServerBootstrap()
            .group(group)
            .channel(NioServerSocketChannel.class)
            .childHandler(
                new ChannelInitializer<Channel>() {
                  @Override
                  protected void initChannel(Channel ch) {
                    ch.pipeline().addLast(Http2FrameCodecBuilder.forServer().build(), new Refuse());
                  }
                })
            .bind(Fixtures.LO, 0)
            .sync()
            .channel();
  }

  private final class Refuse extends ChannelInboundHandlerAdapter {
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      if (msg instanceof Http2HeadersFrame h) {
        refused.incrementAndGet();
        ctx.writeAndFlush(new DefaultHttp2ResetFrame(Http2Error.REFUSED_STREAM).stream(h.stream()));
      }
      ReferenceCountUtil.release(msg);
    }
  }

  InetSocketAddress address() {
    return (InetSocketAddress) server.localAddress();
  }

  int refused() {
    return refused.get();
  }

  @Override
  public void close() {
    server.close();
    group.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS);
  }
}
