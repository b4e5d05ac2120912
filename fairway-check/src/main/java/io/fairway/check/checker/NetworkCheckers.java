package io.fairway.check.checker;

import io.fairway.check.CheckConfigException;
import io.fairway.check.script.ScriptExecutor;
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
import java.util.concurrent.TimeUnit;

/**
 * The real checkers and the resources they share: one small Netty event-loop group (epoll on Linux,
 * NIO elsewhere) for every network check, the script pool for MISC_CHECK, and a ping-socket pool
 * for PING_CHECK.
 */
public final class NetworkCheckers implements CheckerFactory, AutoCloseable {
  private final EventLoopGroup group;
  private final Class<? extends Channel> socketChannel;
  private final Class<? extends DatagramChannel> datagramChannel;
  private final ScriptExecutor scripts;
  private final Pinger pinger;

  public NetworkCheckers(int threads, ScriptExecutor scripts) {
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
    return network != null ? new Pinned(network, loop) : other(vs, rs, spec, where);
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

  private Checker network(CheckSpec spec, EventLoop group, String where) {
    try {
      return networkChecker(spec, group, where);
    } catch (IllegalArgumentException e) {
      throw new CheckConfigException(where + ": " + e.getMessage());
    }
  }

  private Checker networkChecker(CheckSpec spec, EventLoop group, String where) {
    if (spec instanceof TcpCheckSpec s) {
      return TcpChecker.create(
          resolved(s.target(), where),
          s.source(),
          s.timing().connectTimeout(),
          group,
          socketChannel);
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

  private Checker other(VirtualServerSpec vs, RealServerSpec rs, CheckSpec spec, String where) {
    if (spec instanceof PingCheckSpec s) {
      return pinger.checker(s, where);
    } else if (spec instanceof MiscCheckSpec s) {
      scripts.validate(s.script(), where);
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
  }
}
