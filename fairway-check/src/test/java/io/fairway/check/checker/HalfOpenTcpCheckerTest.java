package io.fairway.check.checker;

import static io.fairway.check.checker.EpollTcpCheckerTest.at;
import static io.fairway.check.checker.EpollTcpCheckerTest.once;
import static io.fairway.check.checker.EpollTcpCheckerTest.sockets;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fairway.check.spec.CheckSource;
import io.fairway.check.spec.CheckTiming;
import io.fairway.check.spec.TcpCheckSpec;
import io.fairway.os.script.ScriptExecutor;
import io.fairway.testkit.ExternalPrograms;
import io.netty.channel.EventLoop;
import io.netty.channel.IoEventLoop;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The half-open TCP_CHECK against real loopback listeners, through a real raw socket (the suite
 * runs as root): every outcome, answers matched to the right probe among many, nothing left on the
 * server, and the connect checker wherever a SYN probe cannot work.
 */
class HalfOpenTcpCheckerTest {
  static final Duration T = Duration.ofSeconds(1);
  static MultiThreadIoEventLoopGroup group;
  static IoEventLoop loop;
  static @Nullable SynProber prober;

  static SynProber prober() {
    return Objects.requireNonNull(prober, "start() opened it, or the tests were skipped");
  }

  @BeforeAll
  static void start() {
    assumeTrue(Epoll.isAvailable(), "native epoll is not available here");
    group = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
    loop = group.next();
    try {
      prober = new SynProber(loop);
    } catch (SynProber.Unavailable e) {
      ExternalPrograms.missing("a raw socket (run as root or with CAP_NET_RAW): " + e.getMessage());
    }
  }

  @AfterAll
  static void stop() {
    if (group != null) {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
    if (prober != null) {
      prober.close();
    }
  }

  static HalfOpenTcpChecker checker(InetSocketAddress target, Duration timeout) {
    return new HalfOpenTcpChecker(target, CheckSource.NONE, timeout, prober());
  }

  /**
   * A closed port that stays closed: a socket bound to it that never listens, so the kernel resets
   * every SYN to it and no other process (a parallel test run) can start listening there meanwhile.
   */
  static java.net.Socket closedPort() throws Exception {
    java.net.Socket s = new java.net.Socket();
    s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    return s;
  }

  static InetSocketAddress bound(java.net.Socket bound) {
    return (InetSocketAddress) bound.getLocalSocketAddress();
  }

  @Test
  void anOpenPortPassesAndTheServerKeepsNothing() throws Exception {
    try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      CheckResult r = once(checker(at(server), T));
      assertThat(r.success()).as(r.observation()).isTrue();
      assertThat(r.observation()).matches("SYN-ACK in \\d+ ms");
      // By address and port: a suite beside this one has sockets with the same port number on
      // other loopback addresses (three were counted here once).
      String port = "( src 127.0.0.1:" + server.getLocalPort() + " )";
      long left = sockets("syn-recv", port);
      ExternalPrograms.requireThat(left >= 0, () -> "ss (iproute2) is not installed");
      // The kernel reset the SYN-ACK: no half-open entry, no connection in the accept queue.
      await().atMost(Duration.ofSeconds(5)).until(() -> sockets("syn-recv", port) == 0);
      assertThat(sockets("established", port)).isZero();
      server.setSoTimeout(1);
      try {
        server.accept().close();
        throw new AssertionError("the server accepted a connection");
      } catch (SocketTimeoutException expected) {
        // nothing in the accept queue
      }
      assertThat(prober().inFlight()).isZero();
    }
  }

  @Test
  void aClosedPortIsRefused() throws Exception {
    try (java.net.Socket closed = closedPort()) {
      CheckResult r = once(checker(bound(closed), T));
      assertThat(r).isSameAs(SynProber.REFUSED);
      assertThat(r.observation()).isEqualTo("connection refused");
    }
  }

  /** A listener whose accept queue is full drops SYNs: the probe times out. */
  @Test
  void aDroppedSynTimesOutAtTheConnectTimeout() throws Exception {
    try (ServerSocket full = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      // Held, not used: the full queue is what drops the SYN.
      EpollTcpCheckerTest.Backlog filled = EpollTcpCheckerTest.Backlog.fill(at(full));
      try (filled) {
        Duration timeout = Duration.ofMillis(300);
        long t0 = System.nanoTime();
        CheckResult r = once(checker(at(full), timeout));
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertThat(r.success()).isFalse();
        assertThat(r.observation()).isEqualTo("connect timed out after 300 ms");
        assertThat(ms).isBetween(timeout.toMillis() - 10, timeout.toMillis() + 2000);
        assertThat(prober().inFlight()).isZero();
      }
    }
  }

  /**
   * A check that starts while another probe of the same target is in flight joins it; the SYN is
   * retransmitted after a second, as connect would, and answers both once the queue has room.
   */
  @Test
  void twoChecksOfOneTargetAtOnceAreBothAnsweredAfterARetransmission() throws Exception {
    try (ServerSocket full = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        EpollTcpCheckerTest.Backlog filled = EpollTcpCheckerTest.Backlog.fill(at(full))) {
      var a = checker(at(full), Duration.ofSeconds(4));
      var b = checker(at(full), Duration.ofSeconds(4));
      CompletableFuture<CheckResult> fa = new CompletableFuture<>();
      CompletableFuture<CheckResult> fb = new CompletableFuture<>();
      long t0 = System.nanoTime();
      a.check(fa::complete);
      b.check(fb::complete);
      await().atMost(Duration.ofSeconds(2)).until(() -> onLoop(prober()::inFlight) == 1);
      assertThat(fa).isNotDone();
      // Make room; the SYN retransmitted at ~1 s is answered.
      filled.release(full);
      CheckResult ra = fa.get(6, TimeUnit.SECONDS);
      CheckResult rb = fb.get(6, TimeUnit.SECONDS);
      long ms = (System.nanoTime() - t0) / 1_000_000;
      assertThat(ra.success()).as(ra.observation()).isTrue();
      assertThat(rb.success()).as(rb.observation()).isTrue();
      assertThat(ms).as("answered by the retransmission, not at the timeout").isLessThan(3500);
    }
  }

  /**
   * A joined check whose own timeout is longer outlives the probe it joined and sends its own SYN.
   */
  @Test
  void aJoinedCheckKeepsItsOwnTimeout() throws Exception {
    try (ServerSocket full = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      // Held, not used: the full queue is what drops the SYN.
      EpollTcpCheckerTest.Backlog filled = EpollTcpCheckerTest.Backlog.fill(at(full));
      try (filled) {
        var shortOne = checker(at(full), Duration.ofMillis(200));
        var longOne = checker(at(full), Duration.ofMillis(600));
        CompletableFuture<Long> fs = new CompletableFuture<>();
        CompletableFuture<Long> fl = new CompletableFuture<>();
        long t0 = System.nanoTime();
        loop.execute(
            () -> {
              shortOne.check(r -> fs.complete(r.success() ? -1 : System.nanoTime()));
              longOne.check(r -> fl.complete(r.success() ? -1 : System.nanoTime()));
            });
        long s = (fs.get(5, TimeUnit.SECONDS) - t0) / 1_000_000;
        long l = (fl.get(5, TimeUnit.SECONDS) - t0) / 1_000_000;
        assertThat(s).isBetween(190L, 2200L);
        assertThat(l).isBetween(590L, 2600L).isGreaterThan(s);
        assertThat(onLoop(prober()::inFlight)).isZero();
      }
    }
  }

  /** Many probes at once on one loop, to open and closed ports: each gets its own answer. */
  @Test
  void manyConcurrentProbesAreMatchedByIsn() throws Exception {
    List<ServerSocket> open = new ArrayList<>();
    List<java.net.Socket> closed = new ArrayList<>();
    try {
      for (int i = 0; i < 100; i++) {
        open.add(new ServerSocket(0, 50, InetAddress.getLoopbackAddress()));
        closed.add(closedPort());
      }
      List<CompletableFuture<CheckResult>> ok = new ArrayList<>();
      List<CompletableFuture<CheckResult>> refused = new ArrayList<>();
      // All SYNs leave in one event-loop task, several to each port: answers queue up together
      // and are matched from the batch.
      loop.execute(
          () -> {
            for (int round = 0; round < 3; round++) {
              for (int i = 0; i < open.size(); i++) {
                CompletableFuture<CheckResult> f = new CompletableFuture<>();
                checker(at(open.get(i)), T).check(f::complete);
                ok.add(f);
                CompletableFuture<CheckResult> g = new CompletableFuture<>();
                checker(bound(closed.get(i)), T).check(g::complete);
                refused.add(g);
              }
            }
          });
      await().atMost(Duration.ofSeconds(10)).until(() -> ok.size() == 300 && refused.size() == 300);
      for (var f : ok) {
        CheckResult r = f.get(5, TimeUnit.SECONDS);
        assertThat(r.success()).as(r.observation()).isTrue();
      }
      for (var f : refused) {
        assertThat(f.get(5, TimeUnit.SECONDS)).isSameAs(SynProber.REFUSED);
      }
      assertThat(onLoop(prober()::inFlight)).isZero();
    } finally {
      for (ServerSocket s : open) {
        s.close();
      }
      for (java.net.Socket s : closed) {
        s.close();
      }
    }
  }

  @Test
  void bindtoIsTheSourceAddress() throws Exception {
    try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      var from = new CheckSource(InetAddress.getByName("127.0.0.2"), 0, null, 0);
      var c = new HalfOpenTcpChecker(at(server), from, T, prober());
      CheckResult r = once(c);
      assertThat(r.success()).as(r.observation()).isTrue();
      assertThat(onLoop(() -> c.source()))
          .isEqualTo(
              SynProber.ipv4(Objects.requireNonNull(from.address(), "the source has an address")));
    }
  }

  @Test
  void theTcpChecksumIsTheInternetChecksum() {
    // RFC 1071's example words, as a header after a zero pseudo-header would carry them, checked
    // against a sum done by hand: the one's complement of the folded sum.
    var b = java.nio.ByteBuffer.allocate(40);
    b.putShort(20, (short) 0x0001).putShort(22, (short) 0xf203).putShort(24, (short) 0xf4f5);
    b.putShort(26, (short) 0xf6f7);
    long sum = 0x0001 + 0xf203 + 0xf4f5 + 0xf6f7 + 6 + 20;
    while ((sum >>> 16) != 0) {
      sum = (sum & 0xffff) + (sum >>> 16);
    }
    assertThat(RawTcpSocket.checksum(b, 0, 0)).isEqualTo((short) ~sum);
  }

  @Test
  void fallsBackToConnectWhereASynProbeCannotWork() throws Exception {
    try (var scripts = new ScriptExecutor(1, 4);
        var half = new NetworkCheckers(1, scripts, TcpProbe.HALF_OPEN);
        var connect = new NetworkCheckers(1, scripts, TcpProbe.CONNECT);
        var noRaw =
            new NetworkCheckers(
                1,
                scripts,
                TcpProbe.HALF_OPEN,
                l -> {
                  throw new SynProber.Unavailable("no raw socket: Operation not permitted");
                })) {
      EventLoop l = half.group().next();
      var v4 = new InetSocketAddress("127.0.0.1", 80);
      var v6 = new InetSocketAddress("::1", 80);
      CheckTiming timing = CheckTiming.of(Duration.ofSeconds(1), T);
      var bindto = new CheckSource(InetAddress.getByName("127.0.0.1"), 0, null, 0);
      assertThat(half.tcp(new TcpCheckSpec(v4, timing), l, "w"))
          .isInstanceOf(HalfOpenTcpChecker.class);
      assertThat(half.tcp(new TcpCheckSpec(v4, bindto, timing), l, "w"))
          .isInstanceOf(HalfOpenTcpChecker.class);
      assertThat(half.tcp(new TcpCheckSpec(v6, timing), l, "w"))
          .isInstanceOf(EpollTcpChecker.class);
      for (CheckSource s :
          List.of(
              new CheckSource(null, 4000, null, 0),
              new CheckSource(null, 0, "lo", 0),
              new CheckSource(null, 0, null, 7))) {
        assertThat(half.tcp(new TcpCheckSpec(v4, s, timing), l, "w"))
            .as(s.describe())
            .isInstanceOf(EpollTcpChecker.class);
      }
      assertThat(connect.tcp(new TcpCheckSpec(v4, timing), connect.group().next(), "w"))
          .isInstanceOf(EpollTcpChecker.class);
      assertThat(noRaw.tcp(new TcpCheckSpec(v4, timing), noRaw.group().next(), "w"))
          .isInstanceOf(EpollTcpChecker.class);
    }
    var nio = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    try {
      assertThat(
              HalfOpenTcpChecker.unsupported(
                  new InetSocketAddress("127.0.0.1", 80),
                  CheckSource.NONE,
                  nio.next(),
                  NioSocketChannel.class))
          .isEqualTo("an event loop that is not epoll");
      assertThat(
              HalfOpenTcpChecker.unsupported(
                  new InetSocketAddress("127.0.0.1", 80),
                  CheckSource.NONE,
                  group.next(),
                  EpollSocketChannel.class))
          .isNull();
    } finally {
      nio.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
  }

  @Test
  void theOptionWords() {
    assertThat(TcpProbe.parse("half-open")).isEqualTo(TcpProbe.HALF_OPEN);
    assertThat(TcpProbe.parse("connect")).isEqualTo(TcpProbe.CONNECT);
    assertThat(TcpProbe.HALF_OPEN.option()).isEqualTo("half-open");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> TcpProbe.parse("syn"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("connect, half-open");
  }

  interface Call<T> {
    T call() throws Exception;
  }

  static <T> T onLoop(Call<T> c) throws Exception {
    return loop.submit(c::call).get(5, TimeUnit.SECONDS);
  }
}
