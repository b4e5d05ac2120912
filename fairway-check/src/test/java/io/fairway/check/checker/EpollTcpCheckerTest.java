package io.fairway.check.checker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fairway.check.spec.CheckSource;
import io.fairway.testkit.ExternalPrograms;
import io.fairway.testkit.OwnSockets;
import io.netty.channel.IoEventLoop;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The lean TCP_CHECK against real loopback listeners: every outcome, and what it must not leave
 * behind.
 */
class EpollTcpCheckerTest {
  static final Duration T = Duration.ofSeconds(1);
  static MultiThreadIoEventLoopGroup group;
  static IoEventLoop loop;

  @BeforeAll
  static void start() {
    assumeTrue(Epoll.isAvailable(), "native epoll is not available here");
    group = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
    loop = group.next();
  }

  @AfterAll
  static void stop() {
    if (group != null) {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
  }

  static InetSocketAddress at(ServerSocket s) {
    return new InetSocketAddress(s.getInetAddress(), s.getLocalPort());
  }

  static CheckResult once(Checker c) throws Exception {
    CompletableFuture<CheckResult> f = new CompletableFuture<>();
    c.check(f::complete);
    return f.get(c.deadline().toMillis() + 5000, TimeUnit.MILLISECONDS);
  }

  /** A listener that accepts and closes every connection, remembering who called. */
  static final class Acceptor implements AutoCloseable {
    final ServerSocket server;
    final BlockingQueue<InetSocketAddress> peers = new LinkedBlockingQueue<>();
    final Thread thread;

    Acceptor(InetSocketAddress bind) throws IOException {
      server = new ServerSocket();
      server.setReuseAddress(true);
      server.bind(bind, 1024);
      thread =
          new Thread(
              () -> {
                while (!server.isClosed()) {
                  try (Socket s = server.accept()) {
                    peers.offer((InetSocketAddress) s.getRemoteSocketAddress());
                  } catch (IOException e) {
                    // closed
                  }
                }
              });
      thread.setDaemon(true);
      thread.start();
    }

    Acceptor() throws IOException {
      this(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    }

    InetSocketAddress address() {
      return at(server);
    }

    @Override
    public void close() throws IOException {
      server.close();
      try {
        thread.join(2000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  @Test
  void theFactoryPicksTheLeanCheckerOnEpollAndTheChannelOneOnNio() {
    var target = new InetSocketAddress("127.0.0.1", 1);
    assertThat(TcpChecker.create(target, CheckSource.NONE, T, loop, EpollSocketChannel.class))
        .isInstanceOf(EpollTcpChecker.class);
    var nio = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    try {
      assertThat(TcpChecker.create(target, CheckSource.NONE, T, nio.next(), NioSocketChannel.class))
          .isInstanceOf(TcpChecker.class);
    } finally {
      nio.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
  }

  @Test
  void connectsRefusesAndSeesAServerComeBack() throws Exception {
    int port;
    InetSocketAddress target;
    EpollTcpChecker c;
    try (Acceptor a = new Acceptor()) {
      target = a.address();
      port = target.getPort();
      c = new EpollTcpChecker(target, null, T, loop);
      CheckResult ok = once(c);
      assertThat(ok.success()).as(ok.observation()).isTrue();
      assertThat(ok.observation()).matches("connected in \\d+ ms");
      assertThat(a.peers.poll(2, TimeUnit.SECONDS)).as("the listener saw the probe").isNotNull();
    }
    CheckResult refused = once(c);
    assertThat(refused.success()).isFalse();
    assertThat(refused.observation()).isEqualTo("connection refused");
    // Held, not used: a listener on the port is what the next attempt finds.
    Acceptor back = new Acceptor(new InetSocketAddress(target.getAddress(), port));
    try (back) {
      CheckResult again = once(c);
      assertThat(again.success()).as(again.observation()).isTrue();
    }
  }

  /**
   * A check that settles at once leaves its socket to the loop's next check (reset by {@code
   * connect(AF_UNSPEC)}, not closed): one socket stays open across probes that pass and probes that
   * are refused, every probe still comes from a port of its own, and the socket is closed with the
   * loop.
   */
  @Test
  void theLoopKeepsOneSocketForItsChecksAndEveryProbeHasAPortOfItsOwn() throws Exception {
    var own = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
    IoEventLoop l = own.next();
    java.util.Set<Long> kept;
    try (Acceptor a = new Acceptor();
        java.net.Socket closed = Programs.refusingPort()) {
      var up = new EpollTcpChecker(a.address(), null, T, l);
      var down =
          new EpollTcpChecker(
              new InetSocketAddress("127.0.0.1", closed.getLocalPort()), null, T, l);
      java.util.Set<Long> before = OwnSockets.inodes();
      assertThat(once(up).success()).isTrue();
      java.util.Set<InetSocketAddress> peers = new java.util.HashSet<>();
      peers.add(a.peers.take());
      kept = OwnSockets.inodes();
      kept.removeAll(before);
      for (int i = 0; i < 20; i++) {
        CheckResult d = once(down);
        assertThat(d.observation())
            .as("probe %d of the closed port", i)
            .isEqualTo("connection refused");
        CheckResult u = once(up);
        assertThat(u.success()).as("probe %d of the listener: %s", i, u.observation()).isTrue();
        peers.add(a.peers.poll(10, TimeUnit.SECONDS));
        kept.retainAll(OwnSockets.inodes());
      }
      assertThat(kept).as("a socket open from the first probe to the last").hasSize(1);
      assertThat(peers).as("the listener's peers, each probe from a port of its own").hasSize(21);
    } finally {
      own.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
    long spare = kept.iterator().next();
    org.awaitility.Awaitility.await()
        .atMost(Duration.ofSeconds(5))
        .untilAsserted(
            () -> assertThat(OwnSockets.inodes()).as("closed with its loop").doesNotContain(spare));
  }

  @Test
  void ipv6Loopback() throws Exception {
    Acceptor a;
    try {
      a = new Acceptor(new InetSocketAddress(InetAddress.getByName("::1"), 0));
    } catch (IOException e) {
      assumeTrue(false, "no IPv6 loopback here: " + e.getMessage());
      return;
    }
    try (a) {
      CheckResult ok = once(new EpollTcpChecker(a.address(), null, T, loop));
      assertThat(ok.success()).as(ok.observation()).isTrue();
    }
  }

  /**
   * A listener whose accept queue is full drops new SYNs, so the handshake stays in SYN_SENT: the
   * attempt goes through epoll and the connect timeout.
   */
  @Test
  void aHandshakeThatNeverCompletesTimesOut() throws Exception {
    try (ServerSocket full = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      // Held, not used: the full queue is what makes the handshake hang.
      Backlog filled = Backlog.fill(at(full));
      try (filled) {
        Duration timeout = Duration.ofMillis(300);
        var c = new EpollTcpChecker(at(full), null, timeout, loop);
        long t0 = System.nanoTime();
        CheckResult r = once(c);
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertThat(r.success()).isFalse();
        assertThat(r.observation()).isEqualTo("connect timed out after 300 ms");
        // At the timeout, not before; after it only by scheduling (2 s, this suite's margin for a
        // loaded machine), still well before the 3 s a connect would give up on by default.
        assertThat(ms).isBetween(timeout.toMillis() - 10, timeout.toMillis() + 2000);
        // The checker's own socket, not the process's descriptor count: another thread may open a
        // file meanwhile (a repeated run under load saw 60 descriptors against 59).
        long left = synSent(full.getLocalPort());
        ExternalPrograms.requireThat(left >= 0, () -> "ss (iproute2) is not installed");
        assertThat(left).as("the timed-out socket is closed (SYN_SENT to the full port)").isZero();
      }
    }
  }

  /**
   * A SYN dropped once and retransmitted a second later: the late handshake is seen through epoll.
   */
  @Test
  void aLateHandshakeIsSeenThroughEpoll() throws Exception {
    try (ServerSocket full = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        Backlog filled = Backlog.fill(at(full))) {
      var c = new EpollTcpChecker(at(full), null, Duration.ofSeconds(3), loop);
      CompletableFuture<CheckResult> f = new CompletableFuture<>();
      c.check(f::complete);
      Thread.sleep(200);
      assertThat(f).as("still waiting for the handshake").isNotDone();
      // Make room: the kernel retransmits the SYN after ~1 s and the handshake completes.
      filled.release(full);
      CheckResult r = f.get(5, TimeUnit.SECONDS);
      assertThat(r.success()).as(r.observation()).isTrue();
      assertThat(r.observation()).matches("connected in \\d+ ms");
    }
  }

  @Test
  void bindsTheSourceAddressAnyPortAndAFixedPort() throws Exception {
    InetSocketAddress any = new InetSocketAddress("127.0.0.2", 0);
    int fixed;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.2"))) {
      fixed = s.getLocalPort(); // a port free on 127.0.0.2
    }
    try (Acceptor a = new Acceptor()) {
      CheckResult r = once(new EpollTcpChecker(a.address(), any, T, loop));
      assertThat(r.success()).as(r.observation()).isTrue();
      InetSocketAddress peer = a.peers.poll(2, TimeUnit.SECONDS);
      assertThat(peer.getAddress().getHostAddress()).isEqualTo("127.0.0.2");

      var c = new EpollTcpChecker(a.address(), new InetSocketAddress("127.0.0.2", fixed), T, loop);
      for (int i = 0; i < 3; i++) { // the same source port, again and again: each probe was reset
        CheckResult f = once(c);
        assertThat(f.success()).as(f.observation()).isTrue();
        assertThat(a.peers.poll(2, TimeUnit.SECONDS))
            .isEqualTo(new InetSocketAddress("127.0.0.2", fixed));
      }
    }
  }

  @Test
  void anUnusableSourceAddressIsAFailureWithAReason() throws Exception {
    try (Acceptor a = new Acceptor()) {
      // 192.0.2.1 (TEST-NET-1) is on no interface here: bind fails before anything is sent.
      CheckResult r =
          once(new EpollTcpChecker(a.address(), new InetSocketAddress("192.0.2.1", 0), T, loop));
      assertThat(r.success()).isFalse();
      assertThat(r.observation()).containsIgnoringCase("assign requested address");
    }
  }

  @Test
  void theChannelCheckerBindsTheSourceToo() throws Exception {
    var nio = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    try (Acceptor a = new Acceptor()) {
      var c =
          new TcpChecker(
              a.address(),
              new InetSocketAddress("127.0.0.2", 0),
              T,
              nio.next(),
              NioSocketChannel.class);
      CheckResult r = once(c);
      assertThat(r.success()).as(r.observation()).isTrue();
      assertThat(a.peers.poll(2, TimeUnit.SECONDS).getAddress().getHostAddress())
          .isEqualTo("127.0.0.2");
    } finally {
      nio.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
  }

  /**
   * 10,000 probes, successful and refused: no descriptor leaks, and resets leave no TIME_WAIT
   * behind.
   */
  @Test
  void tenThousandChecksLeakNoDescriptorAndLeaveNoTimeWait() throws Exception {
    try (Acceptor a = new Acceptor();
        java.net.Socket closed = Programs.refusingPort()) {
      var up = new EpollTcpChecker(a.address(), null, T, loop);
      var down =
          new EpollTcpChecker(
              new InetSocketAddress("127.0.0.1", closed.getLocalPort()), null, T, loop);
      once(up);
      a.peers.take();
      once(down);
      int fds = openFds();
      for (int i = 0; i < 5_000; i++) {
        CheckResult u = once(up);
        assertThat(u.success()).as("probe %d of the listener: %s", i, u.observation()).isTrue();
        // The next probe waits until the listener has taken this one: a probe completes at
        // the handshake, so on a loaded machine they could outrun the accepting thread,
        // fill the backlog and have a SYN dropped (retransmitted after the 1 s timeout).
        assertThat(a.peers.poll(10, TimeUnit.SECONDS)).as("probe %d accepted", i).isNotNull();
        CheckResult d = once(down);
        assertThat(d.success()).as("probe %d of the closed port: %s", i, d.observation()).isFalse();
      }
      assertThat(openFds())
          .isLessThanOrEqualTo(fds + 2); // the JVM may open a file or two meanwhile
      long tw = timeWait(a.address().getPort());
      ExternalPrograms.requireThat(tw >= 0, () -> "ss (iproute2) is not installed");
      assertThat(tw).as("sockets in TIME_WAIT on the listener's port").isLessThan(50);
    }
  }

  static int openFds() throws IOException {
    try (var s = Files.list(Path.of("/proc/self/fd"))) {
      return (int) s.count();
    }
  }

  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  /**
   * Sockets in TIME_WAIT to or from 127.0.0.1:{@code port}, or -1 if ss is not available. By
   * address and port: other processes have sockets with the same port number on other addresses.
   */
  static long timeWait(int port) throws Exception {
    return sockets("time-wait", "( src 127.0.0.1:" + port + " or dst 127.0.0.1:" + port + " )");
  }

  /** Sockets of this network namespace still trying to connect to 127.0.0.1:{@code port}. */
  static long synSent(int port) throws Exception {
    return sockets("syn-sent", "( dst 127.0.0.1:" + port + " )");
  }

  /**
   * How many TCP sockets {@code ss} lists in {@code state} matching {@code filter}; -1 without ss.
   */
  static long sockets(String state, String filter) throws Exception {
    Process p;
    try {
      p =
          new ProcessBuilder("ss", "-Htan", "state", state, filter)
              .redirectErrorStream(true)
              .start();
    } catch (IOException e) {
      return -1;
    }
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (p.waitFor() != 0) {
      return -1;
    }
    return out.lines().filter(l -> !l.isBlank()).count();
  }

  /**
   * Connections that fill a never-accepting listener's queue until the kernel drops further SYNs.
   */
  static final class Backlog implements AutoCloseable {
    final List<Socket> sockets = new ArrayList<>();

    static Backlog fill(InetSocketAddress listener) throws IOException {
      Backlog b = new Backlog();
      for (int i = 0; i < 16; i++) {
        Socket s = new Socket();
        try {
          s.connect(listener, 200);
          b.sockets.add(s);
        } catch (SocketTimeoutException e) {
          s.close();
          return b;
        }
      }
      b.close();
      throw new IllegalStateException("the listener's queue never filled");
    }

    /**
     * Makes room in {@code listener}'s queue: the filling connections closed and whatever it queued
     * accepted and closed, so the next SYN (a retransmission) completes.
     */
    void release(ServerSocket listener) throws IOException {
      close();
      listener.setSoTimeout(100);
      try {
        for (int i = 0; i < 8; i++) {
          listener.accept().close();
        }
      } catch (SocketTimeoutException drained) {
        // the queue is empty
      }
    }

    @Override
    public void close() throws IOException {
      for (Socket s : sockets) {
        s.close();
      }
    }
  }
}
