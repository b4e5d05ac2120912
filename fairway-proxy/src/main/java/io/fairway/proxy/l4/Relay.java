package io.fairway.proxy.l4;

import io.fairway.proxy.ProxyOptions;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.epoll.AbstractEpollStreamChannel;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.DuplexChannel;
import io.netty.channel.unix.FileDescriptor;
import io.netty.channel.unix.Socket;
import java.io.IOException;
import org.jspecify.annotations.Nullable;

/**
 * Moves bytes from its channel to a peer channel, one of the two halves of an L4 connection: copied
 * through the JVM, or, while a bulk transfer streams (see {@link ProxyOptions#spliceThreshold()}),
 * spliced kernel-to-kernel through a pipe (the epoll transport's {@code spliceTo}).
 *
 * <p>Backpressure: when the peer's outbound buffer passes its high-water mark this side stops
 * reading, and resumes when the peer drains; a fast sender in front of a slow receiver therefore
 * never makes the proxy buffer more than the water marks allow. A splicing direction gets the same
 * from the transport: it stops reading while the pipe's content is not yet written out, so at most
 * one pipe (64 KiB) is in flight.
 *
 * <p>Bytes are counted by the channel's {@link TrafficMeter}, not here: spliced bytes never pass
 * through the pipeline.
 */
public final class Relay extends ChannelInboundHandlerAdapter {
  /** How much a bulk read lets splice move before the relay looks at the traffic again. */
  static final int SPLICE_BURST = 1 << 20;

  /** Splices started in this JVM (a diagnostic: tests check that a mode really splices). */
  public static final java.util.concurrent.atomic.LongAdder SPLICES =
      new java.util.concurrent.atomic.LongAdder();

  private final Channel peer;

  /** The peer's socket when it is an epoll channel, for writing without queueing; else null. */
  private final @Nullable Socket peerSocket;

  private final long spliceAbove;
  private boolean splicing;

  /** This direction has spliced at some point, so a FIN may leave bytes behind (drainAfterFin). */
  private boolean spliced;

  /** Something went through the peer's outbound buffer since the last flush. */
  private boolean queued;

  /**
   * @param peer where this channel's bytes go
   * @param spliceAbove a read of at least this many bytes makes this direction splice its next
   *     {@link #SPLICE_BURST} bytes; 0 splices everything, -1 never (the caller has checked that
   *     both channels are epoll channels in level-triggered mode)
   */
  public Relay(Channel peer, long spliceAbove) {
    this.peer = peer;
    this.peerSocket =
        // A TLS peer's bytes must pass its pipeline's SslHandler: never straight to its socket
        // (a client of a tls listener, or a server re-encrypted to).
        peer instanceof AbstractEpollStreamChannel e
                && e.fd() instanceof Socket s
                && !io.fairway.proxy.tls.TlsHandshakes.isTls(peer)
                && peer.pipeline().get(io.netty.handler.ssl.SslHandler.class) == null
            ? s
            : null;
    this.spliceAbove = spliceAbove;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    if (spliceAbove == 0 && ctx.channel().isActive()) {
      splice(ctx, Integer.MAX_VALUE);
    }
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    if (spliceAbove == 0) {
      splice(ctx, Integer.MAX_VALUE);
    }
    ctx.fireChannelActive();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    ByteBuf b = (ByteBuf) msg;
    boolean bulk = spliceAbove > 0 && !splicing && b.readableBytes() >= spliceAbove;
    if (!sendNow(b)) {
      peer.write(b, peer.voidPromise());
      queued = true;
    }
    if (bulk) {
      // A full read: a transfer is streaming. Whatever of this buffer is still queued is ahead
      // of the splice in the peer's outbound buffer, so the order holds; the read loop takes the
      // splice path from its next iteration, and copies again once the burst is through.
      splice(ctx, SPLICE_BURST);
    }
    if (!peer.isWritable()) {
      ctx.channel().config().setAutoRead(false);
    }
  }

  /**
   * Writes {@code b} to the peer's socket right away when nothing is queued for the peer, which is
   * the usual case for request/response traffic: it saves the outbound buffer's bookkeeping and a
   * flush per read, the largest Java cost left on that path. Whatever the socket does not take
   * stays in {@code b} for the queued path, so the bytes keep their order.
   *
   * @return whether all of {@code b} was written (and released)
   */
  private boolean sendNow(ByteBuf b) {
    Socket s = peerSocket;
    if (s == null || !b.hasMemoryAddress() || !peer.isActive()) {
      return false;
    }
    ChannelOutboundBuffer out = peer.unsafe().outboundBuffer();
    // Entries of zero bytes (the empty write before a half-close) still count here.
    if (out == null
        || out.totalPendingWriteBytes() != 0
        || ((DuplexChannel) peer).isOutputShutdown()) {
      return false;
    }
    try {
      int n = s.sendAddress(b.memoryAddress(), b.readerIndex(), b.writerIndex());
      b.skipBytes(n);
    } catch (IOException e) {
      // A reset or broken pipe: the queued path reports it the way Netty always does.
      return false;
    }
    if (b.isReadable()) {
      return false;
    }
    b.release();
    return true;
  }

  // spliceTo is deprecated in Netty 4.2 with nothing to replace it: splicing is what this relay
  // does on epoll, so the call stays until Netty offers another way to it.
  @SuppressWarnings("deprecation")
  private void splice(ChannelHandlerContext ctx, int len) {
    if (splicing) {
      return;
    }
    splicing = true;
    spliced = true;
    // A splice can leave bytes behind at the FIN, which only the input-shutdown event lets
    // drainAfterFin collect: the channel must see its FIN as a half-close (see
    // shutdownOutputAfterFlush).
    ctx.channel().config().setOption(ChannelOption.ALLOW_HALF_CLOSURE, true);
    SPLICES.increment();
    ((AbstractEpollStreamChannel) ctx.channel())
        .spliceTo((AbstractEpollStreamChannel) peer, len)
        .addListener(
            f -> {
              if (f.isSuccess()) {
                splicing = false; // the burst is through
              } else if (!peer.isActive()) {
                // The other side is gone. Not a plain close: what the other direction queued
                // for this channel (a download's tail) must still be written, or a slow reader
                // loses it.
                closeOnFlush(ctx.channel());
              }
              // Otherwise this side's input ended (a FIN: userEventTriggered passes it on and
              // the other direction carries on) or this channel broke (it is closing already).
            });
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    if (queued) {
      queued = false;
      peer.flush();
    }
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
    if (evt instanceof ChannelInputShutdownEvent) {
      if (spliced) {
        // Not only while splicing: a burst that ends on the read that saw the FIN has already
        // reported completion when the transport shuts the input down. (A direction that never
        // spliced read everything up to the FIN through the ordinary read loop.)
        drainAfterFin(ctx);
      }
      // Half-close: this side sent FIN; pass it on once what it sent is written, and keep
      // relaying the other way (a client that shuts down writing still wants its answer).
      if (peer instanceof DuplexChannel && peer.isActive()) {
        shutdownOutputAfterFlush(peer);
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

  /**
   * The epoll transport's splice stops at the FIN notification (EPOLLRDHUP) after one pipe's worth,
   * although the data that arrived before the FIN may still sit in the receive queue; that tail is
   * read here and sent after what was spliced, or a download ending in FIN would lose up to a
   * receive buffer of its end. Bounded by the socket's receive buffer.
   */
  private void drainAfterFin(ChannelHandlerContext ctx) {
    FileDescriptor fd = ((AbstractEpollStreamChannel) ctx.channel()).fd();
    TrafficMeter meter =
        ctx.channel().config().getRecvByteBufAllocator() instanceof TrafficMeter m ? m : null;
    for (; ; ) {
      ByteBuf buf = ctx.alloc().directBuffer(65536);
      int n;
      try {
        if (buf.hasMemoryAddress()) {
          n = fd.readAddress(buf.memoryAddress(), 0, buf.capacity());
        } else {
          java.nio.ByteBuffer nio = buf.internalNioBuffer(0, buf.capacity());
          n = fd.read(nio, nio.position(), nio.limit());
        }
      } catch (IOException e) {
        buf.release();
        ctx.close();
        return;
      }
      if (n <= 0) { // 0: nothing queued any more, -1: at the FIN
        buf.release();
        return;
      }
      buf.writerIndex(n);
      if (meter != null) {
        meter.count(n);
      }
      peer.write(buf, peer.voidPromise());
    }
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    // Resets and broken pipes are how TCP connections end; they need no stack trace.
    ctx.close();
  }

  /**
   * Sends {@code ch} a FIN once what is queued for it is written. From then on the connection only
   * waits for the other side's FIN, which closes it; unless {@code ch}'s own direction has spliced,
   * half-closure is turned off, so the transport closes the channel at that FIN instead of shutting
   * down the input of a socket the kernel has already closed — in Netty 4.2.18 that fails with
   * ENOTCONN and costs an exception with a stack trace, once for nearly every connection that ends
   * with the server closing first.
   *
   * <p>If that FIN has already come (the two FINs crossed while bytes for {@code ch} were still
   * queued), both directions are done now and {@code ch} is closed here: no later event would close
   * it, and the pair would hold its backend connection until the idle timeout.
   */
  static void shutdownOutputAfterFlush(Channel ch) {
    ch.writeAndFlush(Unpooled.EMPTY_BUFFER)
        .addListener(
            f -> {
              DuplexChannel d = (DuplexChannel) ch;
              if (d.isInputShutdown()) {
                ch.close();
                return;
              }
              Relay r = ch.pipeline().get(Relay.class);
              if (r == null || !r.spliced) {
                ch.config().setOption(ChannelOption.ALLOW_HALF_CLOSURE, false);
              }
              d.shutdownOutput();
            });
  }

  static void closeOnFlush(Channel ch) {
    if (ch.isActive()) {
      ch.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
    }
  }
}
