package io.fairway.proxy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.DuplexChannel;
import io.netty.handler.timeout.IdleStateEvent;
import java.util.concurrent.atomic.LongAdder;

/**
 * Copies bytes from its channel to a peer channel, one of the two halves of an L4 connection.
 *
 * <p>Backpressure: when the peer's outbound buffer passes its high-water mark this side stops
 * reading, and resumes when the peer drains; a fast sender in front of a slow receiver therefore
 * never makes the proxy buffer more than the water marks allow.
 */
final class Relay extends ChannelInboundHandlerAdapter {
  private final Channel peer;
  private final LongAdder bytes;

  Relay(Channel peer, LongAdder bytes) {
    this.peer = peer;
    this.bytes = bytes;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (msg instanceof ByteBuf b) {
      bytes.add(b.readableBytes());
    }
    peer.write(msg, peer.voidPromise());
    if (!peer.isWritable()) {
      ctx.channel().config().setAutoRead(false);
    }
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    peer.flush();
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    // Our own writability gates the peer's reading.
    // (A peer whose input is already shut down has nothing left to read, and re-arming its read
    // interest after a FIN fails in the epoll transport.)
    if (ctx.channel().isWritable() && !(peer instanceof DuplexChannel d && d.isInputShutdown())) {
      peer.config().setAutoRead(true);
    }
    ctx.fireChannelWritabilityChanged();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    closeOnFlush(peer);
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
    if (evt instanceof IdleStateEvent) {
      ctx.close();
    } else if (evt instanceof ChannelInputShutdownEvent) {
      // Half-close: this side sent FIN; pass it on once what it sent is written, and keep
      // relaying the other way (a client that shuts down writing still wants its answer).
      if (peer instanceof DuplexChannel d && peer.isActive()) {
        peer.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(f -> d.shutdownOutput());
      } else {
        closeOnFlush(peer);
      }
      if (ctx.channel() instanceof DuplexChannel self && self.isOutputShutdown()) {
        ctx.close(); // both directions are done
      }
    } else {
      ctx.fireUserEventTriggered(evt);
    }
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    // Resets and broken pipes are how TCP connections end; they need no stack trace.
    ctx.close();
  }

  static void closeOnFlush(Channel ch) {
    if (ch.isActive()) {
      ch.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
    }
  }
}
