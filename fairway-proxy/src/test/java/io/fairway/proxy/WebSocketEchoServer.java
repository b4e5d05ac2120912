package io.fairway.proxy;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketFrameAggregator;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolHandler;
import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real WebSocket server on loopback (Netty's handshaker and frame codec): at {@code /ws} it
 * answers every text message {@code m} with {@code echo:m}; anything else is refused by the
 * handshaker as a WebSocket server refuses it.
 */
final class WebSocketEchoServer implements AutoCloseable {
  private final EventLoopGroup group = Transport.group(1);
  private final Channel server;

  /** Connections open right now. */
  final AtomicInteger open = new AtomicInteger();

  WebSocketEchoServer() throws InterruptedException {
    server =
        new ServerBootstrap()
            .group(group)
            .channelFactory(Transport.serverChannel(Fixtures.LO))
            .childHandler(
                new ChannelInitializer<Channel>() {
                  @Override
                  protected void initChannel(Channel ch) {
                    open.incrementAndGet();
                    ch.closeFuture().addListener(f -> open.decrementAndGet());
                    ch.pipeline()
                        .addLast(
                            new HttpServerCodec(),
                            new HttpObjectAggregator(65536),
                            new WebSocketServerProtocolHandler("/ws", null, false, 1 << 20),
                            new WebSocketFrameAggregator(4 << 20),
                            new SimpleChannelInboundHandler<TextWebSocketFrame>() {
                              @Override
                              protected void channelRead0(
                                  ChannelHandlerContext ctx, TextWebSocketFrame f) {
                                ctx.writeAndFlush(new TextWebSocketFrame("echo:" + f.text()));
                              }
                            });
                  }
                })
            .bind(new InetSocketAddress(Fixtures.LO, 0))
            .sync()
            .channel();
  }

  InetSocketAddress address() {
    return (InetSocketAddress) server.localAddress();
  }

  @Override
  public void close() {
    server.close().awaitUninterruptibly();
    group.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS).awaitUninterruptibly();
  }
}
