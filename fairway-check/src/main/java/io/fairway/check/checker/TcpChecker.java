package io.fairway.check.checker;

import io.fairway.check.spec.CheckSource;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoEventLoop;
import io.netty.channel.epoll.EpollSocketChannel;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * TCP_CHECK: success when a connection completes within connect_timeout; the connection is closed
 * at once, with a reset. This is the portable version on a Netty channel (NIO); on Linux {@link
 * #create} picks the lean {@link EpollTcpChecker}, which does the same with a fraction of the CPU.
 */
final class TcpChecker implements Checker {
  /** The connection is closed as soon as it is up; it never carries data. */
  @ChannelHandler.Sharable
  private static final class Nothing extends ChannelInboundHandlerAdapter {}

  private static final ChannelHandler NOTHING = new Nothing();
  private final Bootstrap bootstrap;
  private final InetSocketAddress target;
  private final @Nullable InetSocketAddress source;
  private final Duration timeout;

  /**
   * The cheapest TCP_CHECK the event loop supports, leaving from {@code source} (keepalived's
   * bindto, bind_port, bind_if, fwmark).
   *
   * @throws IllegalArgumentException if the source's family differs from the target's, or it needs
   *     socket options the NIO fallback cannot set
   */
  static Checker create(
      InetSocketAddress target,
      CheckSource source,
      Duration timeout,
      EventLoopGroup loop,
      Class<? extends Channel> channel) {
    InetSocketAddress local = source.localAddress(target.getAddress());
    boolean options = source.bindInterface() != null || source.fwmark() != 0;
    if (channel == EpollSocketChannel.class
        && loop instanceof IoEventLoop io
        && io.isCompatible(EpollTcpChecker.Pending.class)) {
      return new EpollTcpChecker(target, local, options ? source : null, timeout, io);
    }
    if (options) {
      throw new IllegalArgumentException(
          "bind_if/fwmark need the epoll transport (Linux), not " + channel.getSimpleName());
    }
    return new TcpChecker(target, local, timeout, loop, channel);
  }

  TcpChecker(
      InetSocketAddress target,
      Duration timeout,
      EventLoopGroup group,
      Class<? extends Channel> channel) {
    this(target, null, timeout, group, channel);
  }

  TcpChecker(
      InetSocketAddress target,
      @Nullable InetSocketAddress source,
      Duration timeout,
      EventLoopGroup group,
      Class<? extends Channel> channel) {
    this.target = target;
    this.source = source;
    this.timeout = timeout;
    this.bootstrap =
        Resolved.bootstrap(group)
            .channel(channel)
            .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.max(1, timeout.toMillis()))
            // Close with RST, as HAProxy does for its checks: a probe that carried no data needs no
            // FIN
            // handshake, and 10,000 checks a second must not leave 600,000 sockets in TIME_WAIT.
            .option(ChannelOption.SO_LINGER, 0)
            .handler(NOTHING);
    if (source != null && source.getPort() != 0) {
      bootstrap.option(ChannelOption.SO_REUSEADDR, true);
    }
  }

  @Override
  public void check(Consumer<CheckResult> done) {
    long start = System.nanoTime();
    ChannelFuture connect =
        source == null ? bootstrap.connect(target) : bootstrap.connect(target, source);
    connect.addListener(
        (ChannelFuture f) -> {
          if (f.isSuccess()) {
            f.channel().close();
            done.accept(
                CheckResult.ok("connected in " + (System.nanoTime() - start) / 1_000_000 + " ms"));
          } else {
            done.accept(CheckResult.fail(Failures.describe(f.cause(), timeout)));
          }
        });
  }

  @Override
  public Duration deadline() {
    return timeout.plusSeconds(1);
  }
}
