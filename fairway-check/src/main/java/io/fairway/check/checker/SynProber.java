package io.fairway.check.checker;

import io.netty.channel.IoEvent;
import io.netty.channel.IoEventLoop;
import io.netty.channel.IoRegistration;
import io.netty.channel.epoll.EpollIoHandle;
import io.netty.channel.epoll.EpollIoOps;
import io.netty.channel.epoll.LinuxSocket;
import io.netty.channel.unix.FileDescriptor;
import io.netty.util.collection.IntObjectHashMap;
import io.netty.util.collection.LongObjectHashMap;
import io.netty.util.concurrent.Future;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The half-open TCP_CHECK's machinery for one event loop: one raw IPv4 socket that sends every SYN
 * and receives every answer, and one reserved source port. Every {@link HalfOpenTcpChecker} on the
 * loop shares it.
 *
 * <p>Why it is this shape:
 *
 * <ul>
 *   <li>The source port is reserved by a TCP socket bound to {@code 0.0.0.0:0} that never listens
 *       or connects, kept open for the prober's life. No other local socket can take the port
 *       (connect's port choice skips bound ports too), and a SYN-ACK to it finds no socket in the
 *       established or listen tables, so the kernel answers it with a reset by itself: the real
 *       server's half-open entry is cleared at once and nothing is left on either side.
 *   <li>The raw socket sees every TCP segment the host receives. A classic BPF filter keeps only
 *       segments to the reserved port that carry ACK or RST, so the socket's queue holds answers
 *       and nothing else, and they are read in batches with {@code recvmmsg}.
 *   <li>The ISN identifies the probe: a SYN-ACK or reset whose ack is ISN+1 from the target's
 *       address and port answers it. ISNs are random, as the kernel's are, so an off-path host
 *       cannot easily forge a passing check.
 *   <li>{@code IP_HDRINCL}: the prober writes the IP header itself, so each probe leaves from its
 *       own source address (the route's, or {@code bindto}) through one shared socket, and the TCP
 *       checksum it computes covers the same address the packet carries.
 *   <li>Right after each SYN the socket is read once: against a nearby server the kernel has
 *       usually delivered the answer before {@code sendto()} returns, and such a probe then needs
 *       no timer. Otherwise a timer at the connect timeout, rounded up to the engine's 10 ms tick
 *       as in {@link EpollTcpChecker}, and retransmissions at 1 s, 3 s, 7 s ... as the kernel's
 *       connect would do, so one lost SYN does not fail a check with a long connect_timeout.
 *   <li>Two checks of the same address and port from the same source at once would share one
 *       4-tuple, and the server answers a second SYN with another ISN by an ACK for the first: the
 *       second check joins the probe in flight and gets its answer, timed from its own start.
 *   <li>ICMP errors (host or port unreachable) are not read: such a probe times out, as a connect
 *       to a host that does not answer would. The kernel tells a raw TCP socket of every ICMP error
 *       about any TCP segment of the host and fails its next send or read with it once; a failed
 *       send is retried once, so a stranger's error fails no probe.
 * </ul>
 *
 * <p>All state is confined to the event loop; the maps are Netty's primitive-keyed ones and
 * repeated results are shared, so a steady stream of checks allocates one probe object each. The
 * socket itself (its options, filter, batched reads and the SYN's bytes) is {@link RawTcpSocket};
 * this class matches answers to probes and times them.
 */
final class SynProber implements EpollIoHandle {
  /** The engine's timer granularity (ExecutorScheduler.TICK_NANOS). */
  private static final long TICK_NANOS = 10_000_000L;

  /** The kernel's initial SYN retransmission timeout (TCP_TIMEOUT_INIT). */
  private static final long FIRST_RTO_NANOS = 1_000_000_000L;

  static final CheckResult REFUSED = CheckResult.fail("connection refused");

  /** "SYN-ACK in N ms" for the common small N, built once. */
  private static final CheckResult[] ANSWERED = new CheckResult[100];

  static {
    for (int i = 0; i < ANSWERED.length; i++) {
      ANSWERED[i] = CheckResult.ok("SYN-ACK in " + i + " ms");
    }
  }

  /** The raw socket could not be set up; the reason is one line for the log. */
  static final class Unavailable extends Exception {
    Unavailable(String message) {
      super(message, null, false, false);
    }
  }

  private final IoEventLoop loop;
  private final LinuxSocket reserved;
  private final int port;
  private final RawTcpSocket raw;
  private final AtomicBoolean closed = new AtomicBoolean();

  /** Probes whose SYN is out, by ISN. */
  private final IntObjectHashMap<Probe> byIsn = new IntObjectHashMap<>();

  /** The same probes by target address and port, for a second check of the same target. */
  private final LongObjectHashMap<Probe> byTarget = new LongObjectHashMap<>();

  private @Nullable IoRegistration registration;
  private boolean draining;

  /**
   * Reserves the source port and opens the raw socket.
   *
   * @throws Unavailable if the kernel refuses the raw socket (no CAP_NET_RAW) or its filter
   */
  SynProber(IoEventLoop loop) throws Unavailable {
    this.loop = loop;
    try {
      reserved = LinuxSocket.newSocketStream(false);
      reserved.bind(new InetSocketAddress(InetAddress.getByAddress(new byte[4]), 0));
      port = reserved.localAddress().getPort();
    } catch (IOException | RuntimeException e) {
      throw new Unavailable("cannot reserve a source port: " + e.getMessage());
    }
    try {
      raw = new RawTcpSocket(port);
    } catch (Unavailable e) {
      closeReserved();
      throw e;
    }
  }

  /** The reserved source port every probe leaves from. */
  int port() {
    return port;
  }

  /** Probes waiting for an answer (tests). */
  int inFlight() {
    return byIsn.size();
  }

  IoEventLoop loop() {
    return loop;
  }

  /**
   * Reads and matches every queued answer. A result's callback may start the next check at once;
   * that check's SYN then waits for epoll rather than reading into the batch being matched.
   */
  private void drain() {
    if (draining) {
      return;
    }
    draining = true;
    try {
      drainBatches();
    } finally {
      draining = false;
    }
  }

  private void drainBatches() {
    int n;
    do {
      n = raw.receive();
      for (int i = 0; i < n; i++) {
        answer(RawTcpSocket.offset(i), raw.length(i));
      }
    } while (n == RawTcpSocket.BATCH);
  }

  private void answer(int at, int length) {
    ByteBuffer b = raw.received(); // big-endian, network order
    if (length < 20) {
      return;
    }
    int ihl = (b.get(at) & 0x0f) * 4;
    if (ihl < 20 || length < ihl + 20 || b.get(at + 9) != RawTcpSocket.IPPROTO_TCP) {
      return;
    }
    int tcp = at + ihl;
    int flags = b.get(tcp + 13);
    if ((flags & RawTcpSocket.TCP_ACK) == 0) {
      return;
    }
    Probe p = byIsn.get(b.getInt(tcp + 8) - 1);
    if (p == null
        || p.checker.address != b.getInt(at + 12)
        || p.checker.port != (b.getShort(tcp) & 0xffff)) {
      return;
    }
    if ((flags & RawTcpSocket.TCP_RST) != 0) {
      p.answered(REFUSED);
    } else if ((flags & RawTcpSocket.TCP_SYN) != 0) {
      p.answered(null);
    }
    // A bare ACK answers a SYN the server thinks is a duplicate: wait for the retransmission.
  }

  /** Starts a probe for {@code checker}; on the event loop. */
  void probe(HalfOpenTcpChecker checker, Consumer<CheckResult> done) {
    long begin = System.nanoTime();
    if (closed.get()) {
      done.accept(CheckResult.fail("the checker is shut down"));
      return;
    }
    if (registration == null && !register()) {
      done.accept(CheckResult.fail("could not register the raw socket with the event loop"));
      return;
    }
    int source;
    try {
      source = checker.source();
    } catch (IOException e) {
      done.accept(CheckResult.fail("no source address towards the target: " + e.getMessage()));
      return;
    }
    Probe p = new Probe(checker, source, begin, done);
    @Nullable Probe primary = byTarget.get(checker.key);
    if (primary != null && primary.source == source) {
      primary.join(p);
      p.schedule();
      return;
    }
    p.send();
  }

  private boolean register() {
    try {
      Future<IoRegistration> f = loop.register(this);
      // On the loop thread the registration completes at once.
      registration = f.getNow();
      if (registration == null) {
        return false;
      }
      registration.submit(EpollIoOps.EPOLLIN);
      return true;
    } catch (Exception e) {
      return false;
    }
  }

  /** Sends the SYN of {@code p}; returns 0 or the errno of a failed send. */
  private int sendSyn(Probe p) {
    return raw.sendSyn(p.source, p.checker.address, p.checker.port, p.isn);
  }

  private static long aligned(long at) {
    return Math.floorDiv(at + TICK_NANOS - 1, TICK_NANOS) * TICK_NANOS;
  }

  @Override
  public FileDescriptor fd() {
    return raw.fd();
  }

  @Override
  public void handle(IoRegistration registration, IoEvent event) {
    if (!closed.get()) {
      drain();
    }
  }

  @Override
  public void close() {
    // The event loop is shutting down, or NetworkCheckers is closed.
    if (closed.compareAndSet(false, true)) {
      closeQuietly();
    }
  }

  private void closeQuietly() {
    raw.close();
    closeReserved();
  }

  private void closeReserved() {
    try {
      reserved.close();
    } catch (IOException ignored) {
      // close(2) of a descriptor we own fails only on EINTR/EIO; it is released either way.
    }
  }

  /**
   * One check's wait: either the probe whose SYN is out (the primary for its target) or a check
   * that joined it.
   */
  final class Probe implements Runnable {
    final HalfOpenTcpChecker checker;
    final int source;
    final long begin;
    final long deadline;
    final Consumer<CheckResult> done;
    int isn;
    long retransmitAt;
    long rto = FIRST_RTO_NANOS;
    @Nullable Future<?> timer;
    boolean finished;

    /** Checks that joined this probe, or null. */
    @Nullable List<Probe> joined;

    /** The probe this one joined, or null. */
    @Nullable Probe primary;

    Probe(HalfOpenTcpChecker checker, int source, long begin, Consumer<CheckResult> done) {
      this.checker = checker;
      this.source = source;
      this.begin = begin;
      this.deadline = aligned(begin + checker.timeoutNanos);
      this.done = done;
    }

    /** Sends the SYN as the primary for its target; answered at once, or armed. */
    void send() {
      int i;
      do {
        i = ThreadLocalRandom.current().nextInt();
      } while (byIsn.containsKey(i));
      isn = i;
      byIsn.put(isn, this);
      byTarget.put(checker.key, this);
      retransmitAt = System.nanoTime() + rto;
      int errno = sendSyn(this);
      if (errno != 0) {
        answered(CheckResult.fail("sending the SYN failed: " + SocketOptions.reason(errno)));
        return;
      }
      drain();
      if (!finished) {
        schedule();
      }
    }

    void join(Probe p) {
      if (joined == null) {
        joined = new ArrayList<>(2);
      }
      joined.add(p);
      p.primary = this;
    }

    /** The next timer: the deadline, or for a primary an earlier retransmission. */
    void schedule() {
      long at = primary == null ? Math.min(deadline, retransmitAt) : deadline;
      timer = loop.schedule(this, Math.max(0, at - System.nanoTime()), TimeUnit.NANOSECONDS);
    }

    /** The answer: null for a SYN-ACK, else the failure. Ends this probe and all that joined it. */
    void answered(@Nullable CheckResult failure) {
      forget();
      complete(failure);
      if (joined != null) {
        for (Probe p : joined) {
          if (!p.finished) {
            Objects.requireNonNull(p.timer, "a joined probe has its own timeout").cancel(false);
            p.complete(failure);
          }
        }
      }
    }

    private void complete(@Nullable CheckResult failure) {
      finished = true;
      if (timer != null && primary == null) {
        timer.cancel(false);
      }
      if (failure != null) {
        // REFUSED is the very instance a reset is answered with; identity, not the words, is
        // what tells a reset from any other failure.
        @SuppressWarnings("ReferenceEquality")
        boolean reset = failure == REFUSED;
        if (!reset) { // a reset came back along the route: it still holds
          checker.forgetSource();
        }
        done.accept(failure);
        return;
      }
      long ms = (System.nanoTime() - begin) / 1_000_000;
      done.accept(
          ms < ANSWERED.length ? ANSWERED[(int) ms] : CheckResult.ok("SYN-ACK in " + ms + " ms"));
    }

    private void forget() {
      byIsn.remove(isn);
      if (byTarget.get(checker.key) == this) {
        byTarget.remove(checker.key);
      }
    }

    /** The timer: a retransmission or the connect timeout. */
    @Override
    public void run() {
      if (finished || closed.get()) {
        return;
      }
      long now = System.nanoTime();
      if (primary != null) {
        // A joined check's own timeout.
        Objects.requireNonNull(primary.joined, "a primary holds its joined probes").remove(this);
        complete(checker.timedOut);
        return;
      }
      if (now < deadline - TICK_NANOS / 2) {
        // Retransmit the same SYN: the server answers a duplicate with its SYN-ACK again.
        rto *= 2;
        retransmitAt = now + rto;
        sendSyn(this);
        schedule();
        return;
      }
      forget();
      List<Probe> waiting = joined;
      finished = true;
      checker.forgetSource();
      done.accept(checker.timedOut);
      if (waiting != null) {
        // Checks that joined and still have time send their own SYN.
        Probe next = null;
        for (Probe p : waiting) {
          if (p.finished) {
            continue;
          }
          Objects.requireNonNull(p.timer, "a joined probe has its own timeout").cancel(false);
          p.primary = null;
          if (next == null) {
            next = p;
          } else {
            next.join(p);
          }
        }
        if (next != null) {
          List<Probe> rest = next.joined;
          next.send();
          if (rest != null && !next.finished) {
            for (Probe p : rest) {
              p.schedule();
            }
          }
        }
      }
    }
  }

  static int ipv4(InetAddress a) throws UnknownHostException {
    byte[] b = a.getAddress();
    if (b.length != 4) {
      throw new UnknownHostException(a + " is not an IPv4 address");
    }
    return ByteBuffer.wrap(b).getInt();
  }
}
