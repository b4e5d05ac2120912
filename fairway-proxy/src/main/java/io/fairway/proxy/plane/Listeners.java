package io.fairway.proxy.plane;

import io.fairway.proxy.KeptEpollChannels;
import io.fairway.proxy.ProxyOptions;
import io.fairway.proxy.Transport;
import io.fairway.proxy.l4.TcpFrontend;
import io.fairway.proxy.proxyprotocol.ProxyProtocolStats;
import io.fairway.proxy.table.ProxyService;
import io.fairway.proxy.udp.UdpRelay;
import io.fairway.table.Endpoints;
import io.fairway.table.Protocol;
import io.fairway.table.ServiceKey;
import io.fairway.table.TableException;
import io.fairway.table.TableException.Reason;
import io.netty.bootstrap.AbstractBootstrap;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.WriteBufferWaterMark;
import java.io.IOException;
import java.net.BindException;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The listening sockets of the table's services: a TCP listener whose accepted connections get
 * their frontends from {@link ClientPipelines}, or a UDP socket with its relay. Binding is where a
 * service meets the system (a port in use, an address not local, a privileged port), so the reasons
 * a listener cannot be had, and the check a reload makes before it changes anything, are here with
 * it.
 *
 * <p>Guarded by the table's lock, as the table operations that bind and close listeners are.
 */
final class Listeners {
  /** A service's socket, and what became of its clients' PROXY headers. */
  private record Listener(Channel channel, ProxyProtocolStats proxyProtocol) {}

  /**
   * The event loops of every TCP listener and connection. A listener is registered with one of
   * them, not with a thread of its own, as HAProxy's threads accept: a loop accepts when it gets
   * round to it, so accepting cannot outrun serving. With an accept thread, more clients than the
   * backends take made it hand the loops new connections faster than they could set them up, and
   * each new backend connection sat empty that long, the kind a busy nginx evicts
   * (docs/benchmarks-proxy.md, "Overload"). A loop hands what it accepted on in a task ({@link
   * KeptEpollChannels#ACCEPTED}), after its batch of events.
   */
  private final EventLoopGroup ioGroup;

  /** UDP's event loops: {@link #ioGroup}, unless TCP runs on a transport UDP does not use. */
  private volatile @Nullable EventLoopGroup udpGroup;

  /** Live UDP flows of all services, bounded by {@link ProxyOptions#maxUdpFlows()}. */
  private final AtomicInteger udpFlows = new AtomicInteger();

  /** The table's options in force, read when a listener is bound. */
  private final Supplier<ProxyOptions> options;

  private final ClientPipelines pipelines;
  private final Map<ServiceKey, Listener> byKey = new HashMap<>();

  Listeners(EventLoopGroup ioGroup, Supplier<ProxyOptions> options, ClientPipelines pipelines) {
    this.ioGroup = ioGroup;
    this.options = options;
    this.pipelines = pipelines;
  }

  /**
   * Binds the service's listener on its address and port.
   *
   * @return the address bound: the port the system chose for a service on port 0
   * @throws TableException {@link Reason#OTHER} naming the address and why it cannot be had
   */
  InetSocketAddress bind(ProxyService vs) throws TableException {
    ServiceKey key = vs.service().key();
    ProxyProtocolStats proxyProtocol = new ProxyProtocolStats();
    InetSocketAddress addr = new InetSocketAddress(key.address(), key.port());
    AbstractBootstrap<?, ?> boot =
        key.protocol() == Protocol.UDP ? datagramBootstrap(vs) : serverBootstrap(vs, proxyProtocol);
    (key.protocol() == Protocol.UDP ? Transport.udpFreeBind() : Transport.freeBind())
        .ifPresent(o -> boot.option(o, true)); // a VRRP backup listens before it holds the address
    ChannelFuture bind = boot.bind(addr).awaitUninterruptibly();
    if (!bind.isSuccess()) {
      // Not Reason.EXISTS: that means "the service is in the table already", which the apply
      // layer rightly takes as success, and then failed on with "no such service".
      throw new TableException(Reason.OTHER, cannotListen(key, addr, bind.cause()), bind.cause());
    }
    byKey.put(key, new Listener(bind.channel(), proxyProtocol));
    return (InetSocketAddress) bind.channel().localAddress();
  }

  /** Closes the service's listener, if it has one, and forgets it. */
  void close(ServiceKey key) {
    Listener l = byKey.remove(key);
    if (l != null) {
      l.channel().close().awaitUninterruptibly();
    }
  }

  /**
   * Closes every TCP listener (a soft stop: new connections are refused by the kernel) and keeps
   * UDP sockets, whose established flows keep working.
   */
  void closeTcp() {
    byKey.forEach(
        (key, l) -> {
          if (key.protocol() != Protocol.UDP) {
            l.channel().close().awaitUninterruptibly();
          }
        });
  }

  /** The PROXY header counters of each service with {@code proxy_protocol accept}. */
  Map<ServiceKey, ProxyProtocolStats.Counts> proxyProtocolStats(
      Map<ServiceKey, ProxyService> services) {
    Map<ServiceKey, ProxyProtocolStats.Counts> out = new LinkedHashMap<>();
    services.forEach(
        (k, vs) -> {
          Listener l = byKey.get(k);
          if (vs.spec().proxy().proxyProtocol().accept() && l != null) {
            out.put(k, l.proxyProtocol().counts());
          }
        });
    return out;
  }

  /** Stops UDP's own event loops, if it has any; the table stops {@link #ioGroup}. */
  void shutdownUdp() {
    EventLoopGroup udp = udpGroup;
    if (udp != null && udp != ioGroup) {
      udp.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly();
    }
  }

  private ServerBootstrap serverBootstrap(ProxyService vs, ProxyProtocolStats proxyProtocol) {
    ServerBootstrap b = new ServerBootstrap();
    // No TCP_NODELAY option: Netty's socket configs set it on every new socket already, and
    // setting it again costs a system call per connection.
    return b.group(ioGroup, ioGroup)
        .channelFactory(
            Transport.serverChannel(
                Objects.requireNonNull(
                    vs.service().key().address(), "the plane serves address services only")))
        .option(ChannelOption.SO_BACKLOG, 4096)
        .option(ChannelOption.SO_REUSEADDR, true)
        .handler(KeptEpollChannels.ACCEPTED)
        .childOption(ChannelOption.ALLOCATOR, Transport.ALLOCATOR)
        .childOption(
            ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(32 * 1024, 64 * 1024))
        .childHandler(
            new ChannelInitializer<Channel>() {
              @Override
              protected void initChannel(Channel ch) {
                pipelines.init(vs, proxyProtocol, ch);
              }
            });
  }

  private EventLoopGroup udpGroup() {
    if (udpGroup == null) {
      udpGroup = Transport.udpGroup(ioGroup, options.get().ioThreads());
    }
    return udpGroup;
  }

  /** A UDP service: one socket on the virtual address, a flow per client (see {@link UdpRelay}). */
  private Bootstrap datagramBootstrap(ProxyService vs) {
    return new Bootstrap()
        .group(udpGroup())
        .channel(Transport.datagramChannel())
        .option(ChannelOption.ALLOCATOR, Transport.ALLOCATOR)
        // No SO_REUSEADDR: for UDP it would let a second socket bind the same address and
        // silently share its datagrams, instead of failing with "address already in use".
        .option(ChannelOption.SO_RCVBUF, 1 << 20) // absorbs a burst while the loop is busy
        .option(
            ChannelOption.RECVBUF_ALLOCATOR, new FixedRecvByteBufAllocator(UdpRelay.MAX_DATAGRAM))
        .option(
            ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(256 * 1024, 512 * 1024))
        .handler(new UdpRelay(vs, options.get(), udpFlows));
  }

  /**
   * Whether a listener on {@code key} could be bound now, without changing anything: empty when the
   * address is free, else the reason {@link #bind} would give. (Another process may still take the
   * port between this check and the bind.)
   */
  static Optional<String> checkListen(ServiceKey key) {
    InetSocketAddress addr = new InetSocketAddress(key.address(), key.port());
    try {
      if (key.protocol() == Protocol.UDP) {
        try (DatagramSocket s = new DatagramSocket(null)) {
          s.bind(addr);
        }
      } else {
        try (ServerSocket s = new ServerSocket()) {
          s.setReuseAddress(true); // as the listener does: a port in TIME_WAIT is free
          s.bind(addr, 1);
        }
      }
      return Optional.empty();
    } catch (IOException e) {
      if (notLocal(e)
          && (key.protocol() == Protocol.UDP ? Transport.udpFreeBind() : Transport.freeBind())
              .isPresent()) {
        // The listener binds with IP_FREEBIND (a VRRP backup listens on the virtual address
        // before it holds it); java.net cannot set it, so only a port in use refuses the plan.
        return Optional.empty();
      }
      return Optional.of(cannotListen(key, addr, e));
    }
  }

  private static boolean notLocal(IOException e) {
    return e instanceof BindException
        && e.getMessage() != null
        && e.getMessage().toLowerCase(Locale.ROOT).contains("assign requested address");
  }

  /**
   * The one-line reason a listener cannot be had, naming the address and, if known, who holds it.
   */
  private static String cannotListen(ServiceKey key, InetSocketAddress addr, Throwable c) {
    String m = c == null || c.getMessage() == null ? "" : c.getMessage().toLowerCase(Locale.ROOT);
    String why;
    if (m.contains("in use")) {
      why =
          "address already in use"
              + PortOwner.describe(
                      Objects.requireNonNull(
                          key.protocol(), "the plane serves address services only"),
                      addr.getPort())
                  .map(w -> " (" + w + ")")
                  .orElse("");
    } else if (m.contains("assign requested address")) {
      why = "address not local (cannot assign requested address)";
    } else if (m.contains("permission denied") || m.contains("access denied")) {
      why = "permission denied (a port below 1024 needs CAP_NET_BIND_SERVICE)";
    } else if (c instanceof BindException) {
      why = "address already in use or not local";
    } else {
      why = TcpFrontend.reason(c);
    }
    return key
        + ": cannot listen on "
        + Endpoints.format(addr.getAddress(), addr.getPort())
        + ": "
        + why;
  }
}
