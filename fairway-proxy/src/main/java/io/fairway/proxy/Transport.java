package io.fairway.proxy;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.ChannelFactory;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.SocketProtocolFamily;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.net.Inet4Address;
import java.net.InetAddress;

/**
 * Native epoll where Netty's native library loads (Linux x86_64), NIO otherwise, so a laptop
 * without the native library still runs the demo; epoll is what production and the benchmarks use.
 */
final class Transport {
  static final boolean EPOLL = !Boolean.getBoolean("fairway.proxy.nio") && Epoll.isAvailable();

  /**
   * Every proxy channel's buffers. Netty 4.2 defaults to its adaptive allocator; against it the
   * pooled one (Netty 4.1's default, thread-local caches) cost 0.4 to 0.8 microseconds less user
   * CPU per keep-alive HTTP request in the same sitting (3.0 to 3.7 against 3.6 to 4.7 in all),
   * and a little less per relayed L4 request. See docs/benchmarks-proxy.md.
   */
  static final ByteBufAllocator ALLOCATOR = PooledByteBufAllocator.DEFAULT;

  private Transport() {}

  static EventLoopGroup group(int threads) {
    IoHandlerFactory f = EPOLL ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
    return new MultiThreadIoEventLoopGroup(threads, f);
  }

  /**
   * A listener of the address's family. Netty's epoll sockets are IPv6 unless told otherwise, and
   * an IPv4 connection through an IPv6 socket (as ::ffff:a.b.c.d) goes through the kernel's IPv6
   * socket layer on every send and receive; an IPv4 socket does not (about 1.5 % less CPU per
   * relayed request in an A/B).
   */
  static ChannelFactory<ServerChannel> serverChannel(InetAddress bind) {
    if (!EPOLL) {
      return NioServerSocketChannel::new;
    }
    SocketProtocolFamily f = family(bind);
    return () -> new EpollServerSocketChannel(f);
  }

  /** A socket to connect to {@code to}, of its family (see {@link #serverChannel}). */
  static ChannelFactory<SocketChannel> socketChannel(InetAddress to) {
    if (!EPOLL) {
      return NioSocketChannel::new;
    }
    SocketProtocolFamily f = family(to);
    return () -> new EpollSocketChannel(f);
  }

  static SocketProtocolFamily family(InetAddress a) {
    return a instanceof Inet4Address ? SocketProtocolFamily.INET : SocketProtocolFamily.INET6;
  }

  static Class<? extends DatagramChannel> datagramChannel() {
    return EPOLL ? EpollDatagramChannel.class : NioDatagramChannel.class;
  }

  static String name() {
    return EPOLL ? "epoll" : "nio";
  }
}
