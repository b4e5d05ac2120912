package io.fairway.check.checker;

import io.fairway.check.CheckConfigException;
import io.fairway.check.spec.CheckSpec;
import io.fairway.check.spec.DnsCheckSpec;
import io.fairway.check.spec.FileCheckSpec;
import io.fairway.check.spec.HttpCheckSpec;
import io.fairway.check.spec.MiscCheckSpec;
import io.fairway.check.spec.PingCheckSpec;
import io.fairway.check.spec.RealServerSpec;
import io.fairway.check.spec.SmtpCheckSpec;
import io.fairway.check.spec.TcpCheckSpec;
import io.fairway.check.spec.UdpCheckSpec;
import io.fairway.check.spec.VirtualServerSpec;
import io.fairway.os.script.ScriptExecutor;
import io.fairway.os.script.ScriptRejectedException;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The real checkers and the resources they share: one small Netty event-loop group (epoll on Linux,
 * NIO elsewhere) for every network check, the script pool for MISC_CHECK, and a ping-socket pool
 * for PING_CHECK. With {@link TcpProbe#HALF_OPEN}, one {@link SynProber} per event loop for every
 * TCP_CHECK it can serve; the others, and all of them where no raw socket can be had, connect.
 */
public final class NetworkCheckers implements CheckerFactory, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(NetworkCheckers.class);

  /** Opens a loop's prober; a test may refuse, as a kernel without CAP_NET_RAW does. */
  @FunctionalInterface
  interface ProberOpener {
    SynProber open(io.netty.channel.IoEventLoop loop) throws SynProber.Unavailable;
  }

  private final EventLoopGroup group;
  private final Class<? extends Channel> socketChannel;
  private final Class<? extends DatagramChannel> datagramChannel;
  private final ScriptExecutor scripts;
  private final Pinger pinger;
  private final TcpProbe tcpProbe;
  private final ProberOpener opener;

  /** A loop's prober, or why it has none: opened once per loop. */
  private record LoopProber(@Nullable SynProber prober, @Nullable String whyNot) {}

  private final IdentityHashMap<EventLoop, LoopProber> probers = new IdentityHashMap<>();

  /** Fallback reasons already logged: one line each, not one per check. */
  private final Set<String> fallbacks = ConcurrentHashMap.newKeySet();

  public NetworkCheckers(int threads, ScriptExecutor scripts) {
    this(threads, scripts, TcpProbe.CONNECT);
  }

  public NetworkCheckers(int threads, ScriptExecutor scripts, TcpProbe tcpProbe) {
    this(threads, scripts, tcpProbe, SynProber::new);
  }

  NetworkCheckers(int threads, ScriptExecutor scripts, TcpProbe tcpProbe, ProberOpener opener) {
    this.tcpProbe = java.util.Objects.requireNonNull(tcpProbe, "tcpProbe");
    this.opener = opener;
    boolean epoll = Epoll.isAvailable();
    var threadFactory = new DefaultThreadFactory("fairway-check", true);
    this.group =
        new MultiThreadIoEventLoopGroup(
            threads,
            threadFactory,
            epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
    this.socketChannel = epoll ? EpollSocketChannel.class : NioSocketChannel.class;
    this.datagramChannel = epoll ? EpollDatagramChannel.class : NioDatagramChannel.class;
    this.scripts = scripts;
    this.pinger = new Pinger();
  }

  /** The event loops; also the engine's default scheduler. */
  public EventLoopGroup group() {
    return group;
  }

  @Override
  public Checker create(VirtualServerSpec vs, RealServerSpec rs, CheckSpec spec) {
    String where = vs.name() + " " + rs.name() + " " + spec.describe();
    EventLoop loop = group.next();
    Checker network = network(spec, loop, where);
    return network != null ? new Pinned(network, loop) : other(rs, spec, where);
  }

  /** A network checker bound to one event loop for its whole life. */
  private record Pinned(Checker checker, EventLoop loop) implements Checker {
    @Override
    public void check(java.util.function.Consumer<CheckResult> done) {
      checker.check(done);
    }

    @Override
    public void check(int part, java.util.function.Consumer<CheckResult> done) {
      checker.check(part, done);
    }

    @Override
    public java.time.Duration deadline() {
      return checker.deadline();
    }

    @Override
    public java.util.concurrent.ScheduledExecutorService eventLoop() {
      return loop;
    }

    @Override
    public void close() {
      checker.close();
    }
  }

  private @Nullable Checker network(CheckSpec spec, EventLoop group, String where) {
    try {
      return networkChecker(spec, group, where);
    } catch (IllegalArgumentException e) {
      throw new CheckConfigException(where + ": " + e.getMessage());
    }
  }

  private @Nullable Checker networkChecker(CheckSpec spec, EventLoop group, String where) {
    if (spec instanceof TcpCheckSpec s) {
      return tcp(s, group, where);
    } else if (spec instanceof HttpCheckSpec s) {
      return new HttpChecker(s, resolved(s.target(), where), group, socketChannel);
    } else if (spec instanceof SmtpCheckSpec s) {
      return new SmtpChecker(s, resolved(s.target(), where), group, socketChannel);
    } else if (spec instanceof DnsCheckSpec s) {
      return new DnsChecker(s, resolved(s.target(), where), group, datagramChannel);
    } else if (spec instanceof UdpCheckSpec s) {
      return new UdpChecker(s, resolved(s.target(), where), group, datagramChannel);
    }
    return null;
  }

  /** A TCP_CHECK: half-open where asked for and possible, else connect. */
  Checker tcp(TcpCheckSpec s, EventLoop loop, String where) {
    InetSocketAddress target = resolved(s.target(), where);
    if (tcpProbe == TcpProbe.HALF_OPEN) {
      String why = HalfOpenTcpChecker.unsupported(target, s.source(), loop, socketChannel);
      LoopProber p = why == null ? prober(loop) : new LoopProber(null, why);
      if (p.prober() != null) {
        return new HalfOpenTcpChecker(target, s.source(), s.timing().connectTimeout(), p.prober());
      }
      if (fallbacks.add(p.whyNot())) {
        log.info(
            "half-open TCP_CHECK not possible with {}: {} and any like it connect instead",
            p.whyNot(),
            where);
      }
    }
    return TcpChecker.create(target, s.source(), s.timing().connectTimeout(), loop, socketChannel);
  }

  private synchronized LoopProber prober(EventLoop loop) {
    return probers.computeIfAbsent(
        loop,
        l -> {
          try {
            SynProber p = opener.open((io.netty.channel.IoEventLoop) l);
            log.info("half-open TCP_CHECK: SYN probes from reserved port {}", p.port());
            return new LoopProber(p, null);
          } catch (SynProber.Unavailable e) {
            return new LoopProber(null, e.getMessage());
          }
        });
  }

  private Checker other(RealServerSpec rs, CheckSpec spec, String where) {
    if (spec instanceof PingCheckSpec s) {
      return pinger.checker(s, where);
    } else if (spec instanceof MiscCheckSpec s) {
      try {
        scripts.validate(s.script(), where);
      } catch (ScriptRejectedException e) {
        throw new CheckConfigException(e.reason());
      }
      return new MiscChecker(s, rs.weight(), scripts);
    } else if (spec instanceof FileCheckSpec s) {
      return FileChecker.open(s, where);
    }
    throw new CheckConfigException(where + ": unsupported checker");
  }

  static InetSocketAddress resolved(InetSocketAddress a, String where) {
    if (!a.isUnresolved()) {
      return a;
    }
    InetSocketAddress r = new InetSocketAddress(a.getHostString(), a.getPort());
    if (r.isUnresolved()) {
      throw new CheckConfigException(where + ": cannot resolve host name " + a.getHostString());
    }
    return r;
  }

  @Override
  public void close() {
    pinger.close();
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    List<LoopProber> open;
    synchronized (this) {
      open = new ArrayList<>(probers.values());
    }
    for (LoopProber p : open) {
      if (p.prober() != null) {
        p.prober().close(); // never registered, or registered and already closed by its loop
      }
    }
  }
}
