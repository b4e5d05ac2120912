package io.fairway.check.checker;

import io.fairway.check.spec.CheckSource;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.channel.IoEventLoop;
import io.netty.channel.epoll.EpollSocketChannel;
import java.io.IOException;
import java.net.DatagramSocket;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * TCP_CHECK as a half-open probe ({@code fairway run --tcp-check=half-open}): a SYN from a raw
 * socket; the server's SYN-ACK passes the check, its reset fails it ("connection refused"), silence
 * until connect_timeout fails it. The local kernel resets the SYN-ACK by itself, so the server's
 * half-open entry is gone at once. See {@link SynProber} for the mechanism.
 *
 * <p>Why: a connect probe costs the kernel a socket, a handshake and a reset on both sides, which
 * puts TCP_CHECK at keepalived's own floor (docs/benchmarks-check.md). The half-open probe skips
 * the local socket and the server's accept: it proves that the server's kernel has a listener with
 * room in its SYN queue, as a connect does, and nothing more, as a connect does not either.
 *
 * <p>What differs from keepalived: the server's application never sees an accepted connection (no
 * log line, no accept() wake-up), and the check does not show in the local kernel's connection
 * counters ({@code ActiveOpens}); a SYN flood guard on the server answers both probes alike.
 *
 * <p>It needs what only the shared raw socket can give; where it cannot work, {@link #unsupported}
 * says why and the daemon uses the connect checker instead.
 */
final class HalfOpenTcpChecker implements Checker {
  final SynProber prober;
  final InetSocketAddress target;

  /** The target's IPv4 address and port, as the prober matches them. */
  final int address;

  final int port;

  /** Target address and port in one key. */
  final long key;

  /** {@code bindto}'s address, or 0 for the route's. */
  private final int bindto;

  final long timeoutNanos;
  final CheckResult timedOut;
  private final Duration deadline;

  /** The source address the probe leaves from, found once; 0 until then. */
  private int source;

  HalfOpenTcpChecker(
      InetSocketAddress target, CheckSource from, Duration timeout, SynProber prober) {
    this.prober = prober;
    this.target = target;
    try {
      this.address = SynProber.ipv4(target.getAddress());
      this.bindto = from.address() == null ? 0 : SynProber.ipv4(from.address());
    } catch (java.net.UnknownHostException e) {
      throw new IllegalArgumentException(e.getMessage());
    }
    this.port = target.getPort();
    this.key = ((address & 0xffff_ffffL) << 16) | port;
    this.timeoutNanos = Math.max(1, timeout.toNanos());
    this.timedOut = CheckResult.fail("connect timed out after " + timeout.toMillis() + " ms");
    // The connect timeout is this checker's own; the engine's guard only catches a bug here.
    this.deadline = timeout.plusSeconds(1);
  }

  /**
   * Why a half-open probe cannot check {@code target} from {@code from} on {@code loop}, or null if
   * it can. bind_port, bind_if and fwmark are options of a socket of the check's own, which the
   * shared raw socket cannot carry per probe.
   */
  static @Nullable String unsupported(
      InetSocketAddress target,
      CheckSource from,
      EventLoop loop,
      Class<? extends Channel> channel) {
    if (!(target.getAddress() instanceof Inet4Address)) {
      return "IPv6 targets";
    }
    if (from.port() != 0) {
      return "bind_port";
    }
    if (from.bindInterface() != null) {
      return "bind_if";
    }
    if (from.fwmark() != 0) {
      return "fwmark";
    }
    if (channel != EpollSocketChannel.class
        || !(loop instanceof IoEventLoop io)
        || !io.isCompatible(SynProber.class)) {
      return "an event loop that is not epoll";
    }
    return null;
  }

  /** The source address, found once per target: bindto, or the route's choice. */
  int source() throws IOException {
    if (source == 0) {
      source = bindto != 0 ? bindto : routeSource(target);
    }
    return source;
  }

  /**
   * After a failure the route may have changed: the next attempt asks again (a failing check costs
   * one more socket, a passing one none).
   */
  void forgetSource() {
    source = 0;
  }

  /** The address the kernel would send from: a connected UDP socket's local address. */
  private static int routeSource(InetSocketAddress target) throws IOException {
    try (DatagramSocket s = new DatagramSocket()) {
      s.connect(target);
      InetAddress local = s.getLocalAddress();
      if (!(local instanceof Inet4Address) || local.isAnyLocalAddress()) {
        throw new IOException("no route to " + target.getAddress().getHostAddress());
      }
      return SynProber.ipv4(local);
    }
  }

  @Override
  public void check(Consumer<CheckResult> done) {
    IoEventLoop loop = prober.loop();
    if (loop.inEventLoop()) {
      prober.probe(this, done);
    } else {
      loop.execute(() -> prober.probe(this, done));
    }
  }

  @Override
  public Duration deadline() {
    return deadline;
  }

  @Override
  public ScheduledExecutorService eventLoop() {
    return prober.loop();
  }
}
