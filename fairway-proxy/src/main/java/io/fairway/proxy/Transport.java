package io.fairway.proxy;

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
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;

/**
 * Native epoll where Netty's native library loads (Linux x86_64), NIO otherwise, so a laptop
 * without the native library still runs the demo; epoll is what production and the benchmarks use.
 */
final class Transport {
  static final boolean EPOLL = !Boolean.getBoolean("fairway.proxy.nio") && Epoll.isAvailable();

  private Transport() {}

  static EventLoopGroup group(int threads) {
    IoHandlerFactory f = EPOLL ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
    return new MultiThreadIoEventLoopGroup(threads, f);
  }

  static Class<? extends ServerChannel> serverChannel() {
    return EPOLL ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
  }

  static Class<? extends SocketChannel> socketChannel() {
    return EPOLL ? EpollSocketChannel.class : NioSocketChannel.class;
  }

  static Class<? extends DatagramChannel> datagramChannel() {
    return EPOLL ? EpollDatagramChannel.class : NioDatagramChannel.class;
  }

  static String name() {
    return EPOLL ? "epoll" : "nio";
  }
}
