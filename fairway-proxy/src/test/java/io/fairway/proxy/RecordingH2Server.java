package io.fairway.proxy;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2FrameStream;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.util.ReferenceCountUtil;
import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * An h2c server that records each request as it arrived, frame by frame: its header fields, its
 * body, and its trailing HEADERS (null when there were none); it answers 200 once the request ends.
 */
final class RecordingH2Server implements AutoCloseable {
  /** A request as the server saw it, its body as ISO-8859-1 text. */
  record Received(Http2Headers headers, String body, Http2Headers trailers) {}

  private final EventLoopGroup group =
      new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
  private final Channel server;
  private final BlockingQueue<Received> received = new LinkedBlockingQueue<>();

  RecordingH2Server() throws InterruptedException {
    server =
        new ServerBootstrap()
            .group(group)
            .channel(NioServerSocketChannel.class)
            .childHandler(
                new ChannelInitializer<Channel>() {
                  @Override
                  protected void initChannel(Channel ch) {
                    ch.pipeline()
                        .addLast(Http2FrameCodecBuilder.forServer().build(), new Recorder());
                  }
                })
            .bind(Fixtures.LO, 0)
            .sync()
            .channel();
  }

  /** Per connection: the requests in progress, by stream. */
  private final class Recorder extends ChannelInboundHandlerAdapter {
    private final Map<Http2FrameStream, Http2Headers> heads = new HashMap<>();
    private final Map<Http2FrameStream, ByteArrayOutputStream> bodies = new HashMap<>();

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      try {
        if (msg instanceof Http2HeadersFrame h) {
          Http2FrameStream s = h.stream();
          if (!heads.containsKey(s)) {
            heads.put(s, h.headers());
            bodies.put(s, new ByteArrayOutputStream());
            if (h.isEndStream()) {
              end(ctx, s, null);
            }
          } else {
            end(ctx, s, h.headers());
          }
        } else if (msg instanceof Http2DataFrame d) {
          ByteBuf c = d.content();
          byte[] b = new byte[c.readableBytes()];
          c.readBytes(b);
          bodies.get(d.stream()).writeBytes(b);
          if (d.isEndStream()) {
            end(ctx, d.stream(), null);
          }
        }
      } finally {
        ReferenceCountUtil.release(msg);
      }
    }

    private void end(ChannelHandlerContext ctx, Http2FrameStream s, Http2Headers trailers) {
      received.add(
          new Received(
              heads.remove(s), bodies.remove(s).toString(StandardCharsets.ISO_8859_1), trailers));
      Http2Headers ok = new DefaultHttp2Headers().status("200");
      ctx.write(new DefaultHttp2HeadersFrame(ok).stream(s));
      ctx.writeAndFlush(
          new DefaultHttp2DataFrame(
                  ctx.alloc().buffer().writeBytes("ok\n".getBytes(StandardCharsets.US_ASCII)), true)
              .stream(s));
    }
  }

  InetSocketAddress address() {
    return (InetSocketAddress) server.localAddress();
  }

  /** The next request to end, waiting up to five seconds; null if none did. */
  Received next() throws InterruptedException {
    return nextWithin(java.time.Duration.ofSeconds(5));
  }

  /** The next request to end within {@code wait}; null if none did. */
  Received nextWithin(java.time.Duration wait) throws InterruptedException {
    return received.poll(wait.toMillis(), TimeUnit.MILLISECONDS);
  }

  @Override
  public void close() {
    server.close();
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
  }
}
