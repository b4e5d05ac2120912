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
import io.netty.channel.uring.IoUring;
import io.netty.channel.uring.IoUringIoHandler;
import io.netty.channel.uring.IoUringServerSocketChannel;
import io.netty.channel.uring.IoUringSocketChannel;
import java.net.Inet4Address;
import java.net.InetAddress;
import org.jspecify.annotations.Nullable;

/**
 * The system-call layer under the proxy's TCP sockets: io_uring where the kernel allows it, epoll
 * where it does not, NIO where Netty's native library does not load (a laptop running the demo).
 *
 * <p>Why io_uring first: on a keep-alive connection every exchange is two receives and two sends,
 * and with epoll each is a system call of its own, woken by an {@code epoll_wait}. io_uring submits
 * a loop iteration's sends and receives in one {@code io_uring_enter} and reaps their completions
 * the same way. Measured against epoll in the same sitting: about a quarter less CPU per request
 * and 10 to 30 % more requests per second, TCP and HTTP alike, and ahead of HAProxy where epoll was
 * level with it (docs/benchmarks-proxy.md). Containers often forbid io_uring (Docker's default
 * seccomp profile does); {@code IoUring.isAvailable()} says so and epoll takes over.
 *
 * <p>What only epoll has: splice(2) for bulk L4 transfers ({@code spliceTo}), and the direct sends
 * the relay makes when nothing is queued. io_uring copies bulk transfers; with epoll and splice a 1
 * MiB download costs less CPU. {@code -Dfairway.proxy.transport=epoll} chooses that.
 *
 * <p>UDP stays on epoll (or NIO) in every case, on event loops of its own when TCP runs on
 * io_uring: its relay relies on epoll's handling of empty datagrams and ICMP errors.
 */
public final class Transport {
  enum Kind {
    IO_URING("io_uring"),
    EPOLL("epoll"),
    NIO("nio");

    /** As {@code fairway.proxy.transport} and the log spell it. */
    final String property;

    Kind(String property) {
      this.property = property;
    }
  }

  /** Why the transport asked for cannot be had, or {@code null}; see {@link #requireValid()}. */
  private static final @Nullable String PROBLEM;

  /** The TCP transport, from {@code -Dfairway.proxy.transport=auto|io_uring|epoll|nio}. */
  static final Kind KIND;

  static {
    String problem = null;
    Kind k;
    try {
      k = choose(System.getProperty("fairway.proxy.transport", "auto"));
    } catch (IllegalStateException e) {
      problem = e.getMessage();
      k = choose("auto");
    }
    PROBLEM = problem;
    KIND = k;
  }

  /** TCP sockets are epoll's (splice, direct sends and the epoll workarounds apply). */
  public static final boolean EPOLL = KIND == Kind.EPOLL;

  /** UDP sockets are epoll's. */
  static final boolean UDP_EPOLL = KIND != Kind.NIO && Epoll.isAvailable();

  /**
   * Refuses to start a data plane on a transport other than the one asked for: an operator who
   * names io_uring and silently gets epoll would measure the wrong thing.
   *
   * @throws IllegalStateException naming the property and why
   */
  public static void requireValid() {
    if (PROBLEM != null) {
      throw new IllegalStateException(PROBLEM);
    }
  }

  private static Kind choose(String wanted) {
    switch (wanted) {
      case "io_uring", "iouring", "io-uring" -> {
        if (IoUring.isAvailable()) {
          return Kind.IO_URING;
        }
        throw new IllegalStateException(
            "fairway.proxy.transport=io_uring, but io_uring is not available: "
                + IoUring.unavailabilityCause());
      }
      case "epoll" -> {
        if (Epoll.isAvailable()) {
          return Kind.EPOLL;
        }
        throw new IllegalStateException(
            "fairway.proxy.transport=epoll, but epoll is not available: "
                + Epoll.unavailabilityCause());
      }
      case "nio" -> {
        return Kind.NIO;
      }
      case "auto" -> {
        return IoUring.isAvailable() ? Kind.IO_URING : Epoll.isAvailable() ? Kind.EPOLL : Kind.NIO;
      }
      default ->
          throw new IllegalStateException(
              "fairway.proxy.transport=" + wanted + ": expected auto, io_uring, epoll or nio");
    }
  }

  /**
   * Every proxy channel's buffers. Netty 4.2 defaults to its adaptive allocator; against it the
   * pooled one (Netty 4.1's default, thread-local caches) cost 0.4 to 0.8 microseconds less user
   * CPU per keep-alive HTTP request in the same sitting (3.0 to 3.7 against 3.6 to 4.7 in all), and
   * a little less per relayed L4 request. See docs/benchmarks-proxy.md.
   */
  public static final ByteBufAllocator ALLOCATOR = PooledByteBufAllocator.DEFAULT;

  private Transport() {}

  public static EventLoopGroup group(int threads) {
    IoHandlerFactory f =
        switch (KIND) {
          case IO_URING -> IoUringIoHandler.newFactory();
          case EPOLL -> EpollIoHandler.newFactory();
          case NIO -> NioIoHandler.newFactory();
        };
    return new MultiThreadIoEventLoopGroup(loops(threads), f);
  }

  /** 0 means one per core, as HAProxy's nbthread defaults (Netty's own default is two per core). */
  private static int loops(int threads) {
    return threads > 0 ? threads : Runtime.getRuntime().availableProcessors();
  }

  /**
   * Event loops for UDP channels: {@code tcp}'s, unless TCP runs on io_uring, whose loops cannot
   * take epoll's datagram channels; then new ones of {@code threads}.
   */
  public static EventLoopGroup udpGroup(EventLoopGroup tcp, int threads) {
    if (KIND != Kind.IO_URING) {
      return tcp;
    }
    return new MultiThreadIoEventLoopGroup(
        loops(threads), UDP_EPOLL ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
  }

  /**
   * A listener of the address's family, where the transport lets us choose (epoll). Netty's sockets
   * are IPv6 unless told otherwise, and an IPv4 connection through an IPv6 socket (as
   * ::ffff:a.b.c.d) goes through the kernel's IPv6 socket layer on every send and receive; an IPv4
   * socket does not (about 1.5 % less CPU per relayed request with epoll, in an A/B). Netty
   * 4.2.18's io_uring channels have no such choice and are always IPv6.
   */
  public static ChannelFactory<ServerChannel> serverChannel(InetAddress bind) {
    SocketProtocolFamily f = family(bind);
    return switch (KIND) {
      case IO_URING -> IoUringServerSocketChannel::new; // always IPv6 (dual-stack) in Netty 4.2.18
      case EPOLL -> () -> new EpollServerSocketChannel(f);
      case NIO -> NioServerSocketChannel::new;
    };
  }

  /**
   * {@code IP_FREEBIND} for listeners: a backup of a VRRP pair listens on the virtual address it
   * does not hold yet, so it serves the moment it becomes master, without a rebind. Empty on NIO,
   * where the JDK has no such option (there the listener needs the address to be local).
   */
  public static java.util.Optional<io.netty.channel.ChannelOption<Boolean>> freeBind() {
    return switch (KIND) {
      case IO_URING ->
          java.util.Optional.of(io.netty.channel.uring.IoUringChannelOption.IP_FREEBIND);
      case EPOLL -> java.util.Optional.of(io.netty.channel.epoll.EpollChannelOption.IP_FREEBIND);
      default -> java.util.Optional.empty();
    };
  }

  /** {@link #freeBind()} for UDP sockets, which are epoll or NIO. */
  public static java.util.Optional<io.netty.channel.ChannelOption<Boolean>> udpFreeBind() {
    return UDP_EPOLL
        ? java.util.Optional.of(io.netty.channel.epoll.EpollChannelOption.IP_FREEBIND)
        : java.util.Optional.empty();
  }

  /** A socket to connect to {@code to}, of its family (see {@link #serverChannel}). */
  public static ChannelFactory<SocketChannel> socketChannel(InetAddress to) {
    SocketProtocolFamily f = family(to);
    return switch (KIND) {
      case IO_URING -> IoUringSocketChannel::new;
      case EPOLL -> () -> new EpollSocketChannel(f);
      case NIO -> NioSocketChannel::new;
    };
  }

  static SocketProtocolFamily family(InetAddress a) {
    return a instanceof Inet4Address ? SocketProtocolFamily.INET : SocketProtocolFamily.INET6;
  }

  public static Class<? extends DatagramChannel> datagramChannel() {
    return UDP_EPOLL ? EpollDatagramChannel.class : NioDatagramChannel.class;
  }

  public static String name() {
    return KIND.property;
  }
}
