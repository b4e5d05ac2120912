package io.fairway.check.checker;

import io.fairway.check.spec.CheckSource;
import io.netty.channel.IoEvent;
import io.netty.channel.IoEventLoop;
import io.netty.channel.IoRegistration;
import io.netty.channel.epoll.EpollIoHandle;
import io.netty.channel.epoll.EpollIoOps;
import io.netty.channel.epoll.LinuxSocket;
import io.netty.channel.unix.FileDescriptor;
import io.netty.channel.unix.Socket;
import io.netty.util.concurrent.FastThreadLocal;
import io.netty.util.concurrent.Future;
import java.io.IOException;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * TCP_CHECK on Linux with a bare non-blocking socket instead of a Netty channel: connect, one
 * {@code getsockopt(TCP_INFO)}, and a reset, on a socket the event loop keeps from one check to the
 * next. Fairway's own share of a check is what an operator with 10,000 real servers pays for every
 * second; a channel, its pipeline, promises and half a dozen extra system calls per probe cost
 * about as much CPU as the kernel's work itself (see docs/benchmarks-check.md).
 *
 * <p>Why it is this shape:
 *
 * <ul>
 *   <li>A non-blocking {@code connect()} always answers EINPROGRESS, but against a nearby server
 *       (loopback, a local namespace) the kernel has usually finished the handshake, or received
 *       the reset, before {@code connect()} returns. One {@code TCP_INFO} read tells which:
 *       established, refused, or still in SYN_SENT. Only the last case touches epoll and a timer.
 *   <li>The socket is registered with the event loop only while a handshake is actually pending,
 *       and closed before its registration is cancelled: closing the last reference removes it from
 *       epoll, so no {@code EPOLL_CTL_DEL} is needed.
 *   <li>The probe ends with a reset, as HAProxy's checks do: a probe that carried no data needs no
 *       FIN handshake, and 10,000 checks a second must not leave 600,000 sockets in TIME_WAIT.
 *   <li>The reset is {@code connect(AF_UNSPEC)}, the kernel's {@code tcp_disconnect}, which is also
 *       what a close with {@code SO_LINGER 0} calls; but it leaves the socket open, unbound and
 *       ready for the next connect. Each event loop keeps one such socket per address family, so a
 *       check that settles at once costs three system calls and no socket is created or freed: that
 *       allocation and teardown was a third of the kernel's time per check (35 against 23 µs in a C
 *       loop on this project's benchmark machine, see docs/benchmarks-check.md). A socket with
 *       options of its own ({@code bindto}, {@code bind_if}, {@code fwmark}) is not reused, and
 *       neither is one whose handshake went through epoll (it is registered there).
 *   <li>Results that repeat are shared objects, so a steady stream of passing checks builds no
 *       strings.
 * </ul>
 *
 * <p>All work runs on the checker's event loop; an attempt started elsewhere hops onto it.
 */
final class EpollTcpChecker implements Checker {
  /**
   * {@code IPPROTO_TCP}, {@code TCP_INFO} and the first byte of {@code struct tcp_info}, {@code
   * tcpi_state}.
   */
  private static final int IPPROTO_TCP = 6;

  private static final int TCP_INFO = 11;
  private static final int TCP_SYN_SENT = 2;
  private static final int TCP_CLOSE = 7;

  /** The engine's timer granularity (ExecutorScheduler.TICK_NANOS). */
  private static final long TICK_NANOS = 10_000_000L;

  private static final CheckResult REFUSED = CheckResult.fail("connection refused");

  /** "connected in N ms" for the common small N, built once. */
  private static final CheckResult[] CONNECTED = new CheckResult[100];

  static {
    for (int i = 0; i < CONNECTED.length; i++) {
      CONNECTED[i] = CheckResult.ok("connected in " + i + " ms");
    }
  }

  private final IoEventLoop loop;
  private final InetSocketAddress target;
  private final @Nullable InetSocketAddress source;

  /** bind_if/fwmark to set on each socket, or null. */
  private final @Nullable CheckSource options;

  private final Duration timeout;
  private final long timeoutNanos;
  private final CheckResult timedOut;
  private final Duration deadline;
  private final boolean ipv6;

  /** Whether this check's sockets are plain enough to be the loop's spare (see the class doc). */
  private final boolean reusable;

  /**
   * Each event loop's spare socket per address family ({@code [0]} IPv4, {@code [1]} IPv6, null
   * when none is idle), closed when the loop's thread ends.
   */
  private static final FastThreadLocal<Socket[]> SPARES =
      new FastThreadLocal<>() {
        @Override
        protected Socket[] initialValue() {
          return new Socket[2];
        }

        @Override
        protected void onRemoval(Socket[] spares) {
          for (Socket s : spares) {
            if (s != null) {
              closeQuietly(s);
            }
          }
        }
      };

  /**
   * @param source address (and port, 0 = any) to bind before connecting, keepalived's
   *     bindto/bind_port; null to let the kernel choose
   */
  EpollTcpChecker(
      InetSocketAddress target,
      @Nullable InetSocketAddress source,
      Duration timeout,
      IoEventLoop loop) {
    this(target, source, null, timeout, loop);
  }

  /**
   * @param options {@code bind_if}/{@code fwmark} to set on every socket before it binds, or null
   */
  EpollTcpChecker(
      InetSocketAddress target,
      @Nullable InetSocketAddress source,
      @Nullable CheckSource options,
      Duration timeout,
      IoEventLoop loop) {
    this.loop = loop;
    this.target = target;
    this.source = source;
    this.options = options;
    this.timeout = timeout;
    this.timeoutNanos = Math.max(1, timeout.toNanos());
    this.ipv6 = target.getAddress() instanceof Inet6Address;
    this.reusable = source == null && options == null;
    this.timedOut = CheckResult.fail("connect timed out after " + timeout.toMillis() + " ms");
    // The connect timeout is this checker's own; the engine's guard only catches a bug here.
    this.deadline = timeout.plusSeconds(1);
  }

  @Override
  public Duration deadline() {
    return deadline;
  }

  @Override
  public java.util.concurrent.ScheduledExecutorService eventLoop() {
    return loop;
  }

  @Override
  public void check(Consumer<CheckResult> done) {
    if (loop.inEventLoop()) {
      start(done);
    } else {
      loop.execute(() -> start(done));
    }
  }

  private void start(Consumer<CheckResult> done) {
    long begin = System.nanoTime();
    Socket[] spares = reusable ? SPARES.get() : null;
    int family = ipv6 ? 1 : 0;
    Socket socket = null;
    if (spares != null) {
      socket = spares[family];
      spares[family] = null;
    }
    try {
      if (socket == null) {
        // A socket of the target's own family: a dual-stack socket costs an extra
        // setsockopt(IPV6_V6ONLY).
        socket = LinuxSocket.newSocketStream(ipv6);
      }
    } catch (RuntimeException e) {
      done.accept(CheckResult.fail(Failures.describe(e, timeout)));
      return;
    }
    CheckResult result;
    try {
      if (options != null) {
        // keepalived's order: SO_MARK and SO_BINDTODEVICE, then bind, then connect.
        SocketOptions.apply(socket.intValue(), options);
      }
      if (source != null) {
        if (source.getPort() != 0) {
          // A fixed source port is reused every delay_loop; the previous probe was reset, but a
          // connection the server closed first can still hold the port in TIME_WAIT.
          socket.setReuseAddress(true);
        }
        socket.bind(source);
      }
      socket.connect(target);
      result = settled(socket, begin);
    } catch (IOException | RuntimeException e) {
      result = CheckResult.fail(Failures.describe(e, timeout));
    }
    if (result != null) {
      if (spares != null) {
        keep(socket, spares, family);
      } else {
        end(socket, result);
      }
      done.accept(result);
    } else {
      new Pending(socket, begin, done).arm();
    }
  }

  /** The outcome if the handshake is over, or null while it is still in progress. */
  private @Nullable CheckResult settled(Socket socket, long begin) throws IOException {
    // Reading TCP_INFO into an int copies its first four bytes; tcpi_state is the first, the low
    // byte on the little-endian machines Netty's native epoll ships for (x86_64, aarch64).
    int state = socket.getIntOpt(IPPROTO_TCP, TCP_INFO) & 0xff;
    if (state == TCP_SYN_SENT) {
      return null;
    }
    if (state == TCP_CLOSE) {
      return failure(socket.getSoError());
    }
    long ms = (System.nanoTime() - begin) / 1_000_000;
    return ms < CONNECTED.length
        ? CONNECTED[(int) ms]
        : CheckResult.ok("connected in " + ms + " ms");
  }

  private static CheckResult failure(int errno) {
    // 111 is ECONNREFUSED on Linux, the one failure that happens thousands of times a second in a
    // big pool.
    if (errno == 111) {
      return REFUSED;
    }
    return CheckResult.fail(
        errno == 0 ? "connection failed" : "connect failed: errno " + errno + describeErrno(errno));
  }

  private static String describeErrno(int errno) {
    return switch (errno) {
      case 101 -> " (network unreachable)";
      case 104 -> " (connection reset)";
      case 110 -> " (timed out)";
      case 113 -> " (no route to host)";
      default -> "";
    };
  }

  /** Resets an established probe (nothing is sent otherwise) and closes the socket. */
  private static void end(Socket socket, CheckResult result) {
    if (result.success()) {
      try {
        socket.disconnect();
      } catch (IOException ignored) {
        // the peer reset it first: nothing left to send
      }
    }
    closeQuietly(socket);
  }

  /**
   * Resets the probe and keeps the socket for this loop's next check. After a refusal too: the
   * socket is then in CLOSE with its error read, and {@code disconnect} returns it to unconnected,
   * where a failed connect leaves it half-way (the next {@code connect} would fail with EALREADY).
   */
  private static void keep(Socket socket, Socket[] spares, int family) {
    try {
      socket.disconnect();
    } catch (IOException e) {
      closeQuietly(socket);
      return;
    }
    // Start and finish run on the loop, one check after the other, so the slot is empty again.
    spares[family] = socket;
  }

  private static void closeQuietly(Socket socket) {
    try {
      socket.close();
    } catch (IOException ignored) {
      // close(2) of a socket we own fails only on EINTR/EIO; the descriptor is released either way.
    }
  }

  /**
   * A handshake still in flight: waits for EPOLLOUT/EPOLLERR or the connect timeout, whichever
   * comes first.
   */
  final class Pending implements EpollIoHandle, Runnable {
    private final Socket socket;
    private final long begin;
    private final Consumer<CheckResult> done;
    private @Nullable IoRegistration registration;
    private @Nullable Future<?> timer;
    private boolean finished;

    Pending(Socket socket, long begin, Consumer<CheckResult> done) {
      this.socket = socket;
      this.begin = begin;
      this.done = done;
    }

    void arm() {
      try {
        Future<IoRegistration> f = loop.register(this);
        // On the loop thread the registration completes at once.
        registration = f.getNow();
        if (registration == null) {
          throw new IOException("could not register with the event loop: " + f.cause());
        }
        registration.submit(EpollIoOps.EPOLLOUT);
      } catch (Exception e) {
        finish(CheckResult.fail(Failures.describe(e, timeout)));
        return;
      }
      // Rounded up to the engine's 10 ms tick: when a whole pool of servers drops SYNs, thousands
      // of
      // timeouts a second then share ~100 event-loop wake-ups instead of one each.
      long at = begin + timeoutNanos;
      long aligned = Math.floorDiv(at + TICK_NANOS - 1, TICK_NANOS) * TICK_NANOS;
      timer = loop.schedule(this, Math.max(0, aligned - System.nanoTime()), TimeUnit.NANOSECONDS);
    }

    @Override
    public FileDescriptor fd() {
      return socket;
    }

    @Override
    public void handle(IoRegistration registration, IoEvent event) {
      if (finished) {
        return;
      }
      CheckResult r;
      try {
        r = settled(socket, begin);
      } catch (IOException | RuntimeException e) {
        r = CheckResult.fail(Failures.describe(e, timeout));
      }
      if (r != null) { // null: a stale wake-up, the handshake is still pending
        Objects.requireNonNull(timer, "armed when the connect started").cancel(false);
        finish(r);
      }
    }

    /** The connect timeout. */
    @Override
    public void run() {
      if (!finished) {
        finish(timedOut);
      }
    }

    private void finish(CheckResult r) {
      finished = true;
      // Close first: the registration then has nothing left to remove from epoll.
      end(socket, r);
      if (registration != null) {
        registration.cancel();
      }
      done.accept(r);
    }

    @Override
    public void close() {
      // The event loop is shutting down.
      if (!finished) {
        finished = true;
        if (timer != null) {
          timer.cancel(false);
        }
        closeQuietly(socket);
      }
    }
  }
}
