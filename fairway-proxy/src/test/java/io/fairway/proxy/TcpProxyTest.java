package io.fairway.proxy;

import static io.fairway.proxy.Fixtures.anyPort;
import static io.fairway.proxy.Fixtures.dest;
import static io.fairway.proxy.Fixtures.key;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fairway.proxy.Fixtures.Conn;
import io.fairway.proxy.plane.ProxyTable;
import io.fairway.proxy.table.ListenerSpec;
import io.fairway.table.DestEntry;
import io.fairway.table.Protocol;
import io.fairway.table.Service;
import io.fairway.table.ServiceKey;
import io.fairway.table.TableException;
import io.fairway.testkit.EchoServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The L4 relay over loopback with real TCP backends: table semantics made observable. {@link
 * SplicingTcpProxyTest} runs every test again with the relay splicing.
 */
class TcpProxyTest {
  @AutoClose final Cleanup cleanup = new Cleanup();
  private EchoServer b1;
  private EchoServer b2;
  private EchoServer b3;

  @BeforeEach
  void backends() throws IOException {
    b1 = cleanup.track(new EchoServer("b1"));
    b2 = cleanup.track(new EchoServer("b2"));
    b3 = cleanup.track(new EchoServer("b3"));
  }

  /** The options every test starts from: here the relay only copies. */
  ProxyOptions options() {
    return ProxyOptions.builder().spliceThreshold(-1).build();
  }

  private ProxyTable table(ProxyOptions o, ListenerSpec spec) {
    return cleanup.track(new ProxyTable(o.toBuilder().ioThreads(2).build(), k -> spec));
  }

  private InetSocketAddress serve(ProxyTable t, ServiceKey k, String sched, EchoServer... servers)
      throws TableException {
    return serve(
        t,
        k,
        sched,
        java.util.Arrays.stream(servers)
            .map(EchoServer::address)
            .toArray(InetSocketAddress[]::new));
  }

  private static InetSocketAddress serve(
      ProxyTable t, ServiceKey k, String sched, InetSocketAddress... backends)
      throws TableException {
    t.addService(Service.of(k, sched));
    for (InetSocketAddress b : backends) {
      t.addDest(k, dest(b, 1));
    }
    return t.boundAddress(k);
  }

  private static Map<String, Integer> spread(InetSocketAddress vip, int n) throws IOException {
    Map<String, Integer> m = new HashMap<>();
    for (int i = 0; i < n; i++) {
      try (Conn c = new Conn(vip)) {
        m.merge(c.backend, 1, Integer::sum);
        assertThat(c.echo("ping " + i)).isEqualTo("ping " + i);
      }
    }
    return m;
  }

  @Test
  void relaysBytesBothWaysAndSpreadsNewConnections() throws Exception {
    ProxyTable t = table(options(), null);
    InetSocketAddress vip = serve(t, anyPort(), "rr", b1, b2, b3);
    assertThat(spread(vip, 30))
        .containsOnlyKeys("b1", "b2", "b3")
        .allSatisfy((k, v) -> assertThat(v).isEqualTo(10));
  }

  @ParameterizedTest
  @ValueSource(strings = {"mh", "shard"})
  void hashBalanceFactorSpreadsAHotClient(String algorithm) throws Exception {
    // Every connection comes from 127.0.0.1: plain mh or shard sends them all to one server.
    ProxyTable plain = table(options(), null);
    assertThat(spread(serve(plain, anyPort(), algorithm, b1, b2, b3), 12)).hasSize(1);

    io.fairway.plan.Selection withBound =
        algorithm.equals("mh")
            ? new io.fairway.plan.Selection.Kernel("mh", List.of(), 125)
            : new io.fairway.plan.Selection.Shard(
                67,
                io.fairway.director.varnish.ShardBy.KEY,
                io.fairway.director.varnish.ShardHealthy.CHOSEN,
                0,
                java.time.Duration.ZERO,
                125);
    ListenerSpec bounded = ListenerSpec.tcp().withSelection(withBound);
    ProxyTable t = table(options(), bounded);
    InetSocketAddress vip = serve(t, anyPort(), algorithm, b1, b2, b3);
    Map<String, Integer> m = new HashMap<>();
    for (int i = 0; i < 12; i++) {
      Conn c = cleanup.track(new Conn(vip)); // held open: each one is load the bound must see
      m.merge(c.backend, 1, Integer::sum);
    }
    // 12 connections over 3 servers: none may hold more than 125% of the mean of 4.
    assertThat(m)
        .containsOnlyKeys("b1", "b2", "b3")
        .allSatisfy((k, v) -> assertThat(v).isLessThanOrEqualTo(5));
  }

  @Test
  void drainKeepsEstablishedConnectionWhileNewOnesAvoidTheServer() throws Exception {
    ProxyTable t = table(options(), null);
    ServiceKey k = anyPort();
    InetSocketAddress vip = serve(t, k, "rr", b1, b2);
    Conn onB1 = null;
    while (onB1 == null) {
      Conn c = cleanup.track(new Conn(vip));
      if (c.backend.equals("b1")) {
        onB1 = c;
      }
    }
    t.setDest(k, dest(b1.address(), 0));
    assertThat(spread(vip, 10)).containsOnlyKeys("b2");
    assertThat(onB1.echo("still here")).isEqualTo("still here");
    DestEntry e = entry(t, k, b1.address());
    assertThat(e.activeConnections()).isEqualTo(1);
    assertThat(e.dest().weight()).isZero();
  }

  @Test
  void removalClosesEstablishedConnections() throws Exception {
    ProxyTable t = table(options(), null);
    ServiceKey k = anyPort();
    InetSocketAddress vip = serve(t, k, "rr", b1);
    Conn c = cleanup.track(new Conn(vip));
    assertThat(c.echo("x")).isEqualTo("x");
    t.delDest(k, key(b1.address()));
    assertThat(c.in.read()).isEqualTo(-1);
  }

  @Test
  void removalKeepsConnectionsWhenAskedTo() throws Exception {
    ProxyTable t = table(options().toBuilder().keepConnectionsOnRemove(true).build(), null);
    ServiceKey k = anyPort();
    InetSocketAddress vip = serve(t, k, "rr", b1, b2);
    Conn c = cleanup.track(new Conn(vip));
    t.delDest(k, key(c.backend.equals("b1") ? b1.address() : b2.address()));
    assertThat(c.echo("kept")).isEqualTo("kept");
  }

  @Test
  void failedConnectGoesToTheNextServer() throws Exception {
    ProxyTable t = table(options(), null);
    ServiceKey k = anyPort();
    t.addService(Service.of(k, "rr"));
    InetSocketAddress dead = new InetSocketAddress(Fixtures.LO, Fixtures.deadPort());
    t.addDest(k, dest(dead, 1));
    t.addDest(k, dest(b1.address(), 1));
    assertThat(spread(t.boundAddress(k), 6)).containsOnlyKeys("b1").containsEntry("b1", 6);
  }

  @Test
  void noServerClosesTheClient() throws Exception {
    ProxyTable t = table(options(), null);
    ServiceKey k = anyPort();
    t.addService(Service.of(k, "rr"));
    try (java.net.Socket s = new java.net.Socket()) {
      s.connect(t.boundAddress(k), 2000);
      s.setSoTimeout(3000);
      assertThat(s.getInputStream().read()).isEqualTo(-1);
    }
  }

  @Test
  void overflowGoesToTheSorryServerAndComesBack() throws Exception {
    EchoServer sorry = cleanup.track(new EchoServer("sorry"));
    ProxyOptions o = options().toBuilder().inactiveExpiry(Duration.ofSeconds(1)).build();
    ProxyTable t = table(o, ListenerSpec.tcp().withSorryServer(sorry.address()));
    ServiceKey k = anyPort();
    t.addService(Service.of(k, "rr"));
    t.addDest(k, dest(b1.address(), 1, 1, 0));
    Conn c1 = cleanup.track(new Conn(t.boundAddress(k)));
    assertThat(c1.backend).isEqualTo("b1");
    // b1 is at its uthreshold of 1: the next client overflows.
    try (Conn c2 = new Conn(t.boundAddress(k))) {
      assertThat(c2.backend).isEqualTo("sorry");
    }
    c1.close();
    // Closed connections count as inactive until they expire; then b1 takes new clients again.
    await()
        .atMost(Duration.ofSeconds(5))
        .untilAsserted(
            () -> {
              try (Conn c3 = new Conn(t.boundAddress(k))) {
                assertThat(c3.backend).isEqualTo("b1");
              }
            });
  }

  @Test
  void drainedPoolOverflowsToTheSorryServer() throws Exception {
    EchoServer sorry = cleanup.track(new EchoServer("sorry"));
    ProxyTable t = table(options(), ListenerSpec.tcp().withSorryServer(sorry.address()));
    ServiceKey k = anyPort();
    InetSocketAddress vip = serve(t, k, "wlc", b1, b2);
    t.setDest(k, dest(b1.address(), 0));
    t.setDest(k, dest(b2.address(), 0));
    assertThat(spread(vip, 3)).containsOnlyKeys("sorry");
    t.setDest(k, dest(b2.address(), 5));
    assertThat(spread(vip, 3)).containsOnlyKeys("b2");
  }

  @Test
  void quorumLossSorryServerInstalledByApplyServesAndLeaves() throws Exception {
    EchoServer sorry = cleanup.track(new EchoServer("sorry"));
    ProxyTable t = table(options(), ListenerSpec.tcp().withSorryServer(sorry.address()));
    ServiceKey k = anyPort();
    InetSocketAddress vip = serve(t, k, "rr", b1, b2);
    // What apply does on quorum loss: sorry server in first, then the real servers out.
    t.addDest(k, dest(sorry.address(), 1));
    t.delDest(k, key(b1.address()));
    t.delDest(k, key(b2.address()));
    assertThat(spread(vip, 3)).containsOnlyKeys("sorry");
    // Quorum back: real servers in, then the sorry server out.
    t.addDest(k, dest(b1.address(), 1));
    t.addDest(k, dest(b2.address(), 1));
    assertThat(spread(vip, 4)).containsOnlyKeys("b1", "b2");
    t.delDest(k, key(sorry.address()));
    assertThat(spread(vip, 4)).containsOnlyKeys("b1", "b2");
  }

  @Test
  void countsActiveThenInactiveConnections() throws Exception {
    ProxyTable t = table(options(), null);
    ServiceKey k = anyPort();
    InetSocketAddress vip = serve(t, k, "rr", b1);
    Conn c = cleanup.track(new Conn(vip));
    assertThat(entry(t, k, b1.address()).activeConnections()).isEqualTo(1);
    c.close();
    await()
        .atMost(Duration.ofSeconds(3))
        .untilAsserted(
            () -> {
              DestEntry e = entry(t, k, b1.address());
              assertThat(e.activeConnections()).isZero();
              assertThat(e.inactiveConnections()).isEqualTo(1);
              assertThat(e.stats().connections()).isEqualTo(1);
            });
  }

  @Test
  void persistenceKeepsAClientOnOneServer() throws Exception {
    ProxyTable t = table(options(), null);
    ServiceKey k = anyPort();
    t.addService(Service.of(k, "rr").withPersistence(60, 32));
    t.addDest(k, dest(b1.address(), 1));
    t.addDest(k, dest(b2.address(), 1));
    t.addDest(k, dest(b3.address(), 1));
    Map<String, Integer> m = spread(t.boundAddress(k), 9);
    assertThat(m).hasSize(1);
    assertThat(
            entry(
                    t,
                    k,
                    Fixtures.dest(
                            m.keySet().iterator().next().equals("b1")
                                ? b1.address()
                                : m.containsKey("b2") ? b2.address() : b3.address(),
                            1)
                        .key())
                .persistentConnections())
        .isEqualTo(1);
  }

  @Test
  void reloadLikeChangesKeepTheListenerAndConnections() throws Exception {
    ProxyTable t = table(options(), null);
    ServiceKey k = anyPort();
    InetSocketAddress vip = serve(t, k, "rr", b1, b2);
    Conn c = cleanup.track(new Conn(vip));
    t.setService(Service.of(k, "wlc"));
    t.addDest(k, dest(b3.address(), 3));
    t.delDest(k, key(b2.address()));
    t.delDest(k, key(b1.address()));
    assertThat(spread(vip, 3)).containsOnlyKeys("b3");
    assertThat(t.boundAddress(k)).isEqualTo(vip);
    assertThat(c.socket.isClosed()).isFalse();
  }

  @Test
  void halfCloseStillGetsTheAnswer() throws Exception {
    ProxyTable t = table(options(), null);
    InetSocketAddress vip = serve(t, anyPort(), "rr", b1);
    for (int i = 0; i < 20; i++) {
      try (java.net.Socket s = new java.net.Socket()) {
        s.connect(vip, 2000);
        s.setSoTimeout(3000);
        // Send, then FIN at once (like `printf ... | nc -N`): the echo must still come back whole.
        String payload = "line " + i + "\n" + "x".repeat(20000) + "\n";
        s.getOutputStream().write(payload.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        s.shutdownOutput();
        String all =
            new String(
                s.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.US_ASCII);
        assertThat(all).isEqualTo("b1\n" + payload);
      }
    }
  }

  @Test
  void servesAnIpv6VirtualAddress() throws Exception {
    java.net.InetAddress v6 = java.net.InetAddress.getByName("::1");
    try {
      new ServerSocket(0, 1, v6).close(); // ::1 is there
    } catch (IOException e) {
      org.junit.jupiter.api.Assumptions.assumeTrue(
          false, "no IPv6 loopback here: " + e.getMessage());
    }
    ProxyTable t = table(options(), null);
    ServiceKey k = ServiceKey.of(Protocol.TCP, v6, 0);
    InetSocketAddress vip = serve(t, k, "wlc", b1, b2);
    assertThat(vip.getAddress()).isEqualTo(v6);
    assertThat(spread(vip, 4)).containsOnlyKeys("b1", "b2");
  }

  @Test
  void anIpv4ServiceUsesIpv4SocketsBothWays() throws Exception {
    org.junit.jupiter.api.Assumptions.assumeTrue(
        Transport.EPOLL, "only epoll channels can be made IPv4 (Netty 4.2.18)");
    // An IPv6 socket would carry the same bytes (as ::ffff:127.0.0.1) through the kernel's IPv6
    // socket layer on every call; /proc/net/tcp6 would list it.
    ProxyTable t = table(options(), null);
    InetSocketAddress vip = serve(t, anyPort(), "rr", b1);
    try (Conn c = new Conn(vip)) {
      assertThat(c.echo("x")).isEqualTo("x");
      assertThat(Fixtures.socketsAt("tcp", true, vip)).as("listener and accepted").isEqualTo(2);
      assertThat(Fixtures.socketsAt("tcp6", true, vip)).isZero();
      assertThat(Fixtures.socketsAt("tcp", false, b1.address())).as("to the backend").isEqualTo(1);
      assertThat(Fixtures.socketsAt("tcp6", false, b1.address())).isZero();
    }
  }

  @Test
  void addressInUseIsAOneLineError() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, Fixtures.LO)) {
      ProxyTable t = table(options(), null);
      ServiceKey k = ServiceKey.of(Protocol.TCP, Fixtures.LO, taken.getLocalPort());
      assertThatThrownBy(() -> t.addService(Service.of(k, "rr")))
          .isInstanceOf(TableException.class)
          .hasMessageContaining("127.0.0.1:" + taken.getLocalPort())
          .hasMessageContaining("in use");
      assertThat(t.list()).isEmpty();
    }
  }

  @Test
  void aSecondTableCannotTakeTheAddressOfTheFirst() throws Exception {
    ProxyTable first = table(options(), null);
    InetSocketAddress vip = serve(first, anyPort(), "rr", b1);
    ProxyTable second = table(options(), null);
    ServiceKey same = ServiceKey.of(Protocol.TCP, vip.getAddress(), vip.getPort());
    assertThatThrownBy(() -> second.addService(Service.of(same, "rr")))
        .isInstanceOf(TableException.class)
        .hasMessageContaining("address already in use");
    assertThat(second.list()).isEmpty();
    assertThat(spread(vip, 2)).containsOnlyKeys("b1");
  }

  @Test
  void kernelStyleErrors() throws Exception {
    ProxyTable t = table(options(), null);
    ServiceKey k = anyPort();
    t.addService(Service.of(k, "rr"));
    assertThat(reason(() -> t.addService(Service.of(k, "rr"))))
        .isEqualTo(TableException.Reason.EXISTS);
    assertThat(reason(() -> t.setService(Service.of(k, "nosuch"))))
        .isEqualTo(TableException.Reason.NOT_FOUND);
    assertThat(reason(() -> t.setDest(k, dest(b1.address(), 1))))
        .isEqualTo(TableException.Reason.NOT_FOUND);
    assertThat(reason(() -> t.delService(ServiceKey.of(Protocol.TCP, Fixtures.LO, 1))))
        .isEqualTo(TableException.Reason.NO_SERVICE);
    assertThat(
            reason(
                () -> t.addService(Service.of(ServiceKey.of(Protocol.SCTP, Fixtures.LO, 0), "rr"))))
        .isEqualTo(TableException.Reason.INVALID);
    t.addDest(k, dest(b1.address(), 1));
    assertThat(reason(() -> t.addDest(k, dest(b1.address(), 2))))
        .isEqualTo(TableException.Reason.EXISTS);
    assertThat(reason(() -> t.addDest(k, dest(b2.address(), 1, 5, 10))))
        .isEqualTo(TableException.Reason.RANGE);
  }

  /**
   * Downloads {@code n} bytes from a blob server through vip and checks every byte; with {@code
   * stallFirst}, reads nothing until that server's writes have stopped (the reader is slow).
   */
  private static void download(InetSocketAddress vip, long n, BlobServer stallFirst)
      throws Exception {
    download(vip, n, stallFirst, false);
  }

  private static void download(
      InetSocketAddress vip, long n, BlobServer stallFirst, boolean halfClose) throws Exception {
    download(vip, n, stallFirst, halfClose, null);
  }

  /**
   * Waits until {@code blob}'s writes have stopped: two looks 200 ms apart see the same count, so
   * its sends are blocked on full buffers (a starved sender can only make this return early, which
   * makes no check that follows fail falsely).
   */
  private static void awaitStalled(BlobServer blob) {
    long[] last = {-1};
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(200))
        .until(
            () -> {
              long now = blob.sent.get();
              boolean still = now > 0 && now == last[0];
              last[0] = now;
              return still;
            });
  }

  private static void download(
      InetSocketAddress vip,
      long n,
      BlobServer stallFirst,
      boolean halfClose,
      java.util.concurrent.CountDownLatch startReading)
      throws Exception {
    try (java.net.Socket s = new java.net.Socket()) {
      s.connect(vip, 2000);
      s.setSoTimeout(10000);
      // "N close": the blob server closes after its answer (a download ending in FIN)
      s.getOutputStream()
          .write(
              (n + (halfClose ? "" : " close") + "\n")
                  .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
      if (halfClose) {
        s.shutdownOutput(); // the answer must still come whole, then the server's FIN
      }
      if (stallFirst != null) {
        awaitStalled(stallFirst);
      }
      if (startReading != null) {
        startReading.await();
      }
      assertThat(BlobServer.readBlob(s.getInputStream(), n, ""))
          .as("bytes received before EOF")
          .isEqualTo(n);
    }
  }

  @Test
  void bulkDownloadEndingInFinArrivesWholeAndIsCounted() throws Exception {
    BlobServer blob = cleanup.track(new BlobServer());
    ProxyTable t = table(options(), null);
    ServiceKey k = anyPort();
    InetSocketAddress vip = serve(t, k, "rr", blob.address());
    long n = 6L << 20;
    for (int i = 0; i < 3; i++) {
      download(vip, n + i, null);
    }
    await()
        .atMost(Duration.ofSeconds(3))
        .untilAsserted(
            () -> {
              io.fairway.table.Stats st = entry(t, k, blob.address()).stats();
              assertThat(st.outBytes()).isEqualTo(3 * n + 3);
              // the three request lines: "6291456 close\n", "6291457 close\n", "6291458 close\n"
              assertThat(st.inBytes()).isEqualTo(3 * 14);
            });
  }

  @Test
  void keepAliveExchangesOfMixedSizesStayInOrder() throws Exception {
    BlobServer blob = cleanup.track(new BlobServer());
    ProxyTable t = table(options(), null);
    ServiceKey k = anyPort();
    InetSocketAddress vip = serve(t, k, "rr", blob.address());
    try (java.net.Socket s = new java.net.Socket()) {
      s.connect(vip, 2000);
      s.setSoTimeout(10000);
      java.io.InputStream in = s.getInputStream();
      java.util.Random sizes = new java.util.Random(42);
      byte[] buf = new byte[65536];
      for (int r = 0; r < 40; r++) {
        // Small answers between large ones: a splice burst ends inside one answer and the relay
        // copies, splices, copies again on the same connection.
        int n = r % 3 == 0 ? 1 + sizes.nextInt(300) : 1 + sizes.nextInt(700_000);
        s.getOutputStream().write((n + "\n").getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        for (int off = 0; off < n; ) {
          int got = in.read(buf, 0, Math.min(buf.length, n - off));
          assertThat(got).as("answer %d ended early at %d of %d", r, off, n).isPositive();
          for (int i = 0; i < got; i++) {
            if (buf[i] != BlobServer.pattern(off + i)) {
              throw new AssertionError(
                  "answer " + r + ": byte " + (off + i) + " of " + n + " differs");
            }
          }
          off += got;
        }
      }
    }
  }

  @Test
  void slowReaderHoldsBackTheSenderInsteadOfBeingBuffered() throws Exception {
    BlobServer blob = cleanup.track(new BlobServer());
    ProxyTable t = table(options(), null);
    ServiceKey k = anyPort();
    InetSocketAddress vip = serve(t, k, "rr", blob.address());
    long n = 96L << 20;
    java.util.concurrent.CountDownLatch checked = new java.util.concurrent.CountDownLatch(1);
    Thread reader =
        new Thread(
            () -> {
              try {
                download(vip, n, null, false, checked);
              } catch (Exception e) {
                throw new RuntimeException(e);
              }
            });
    java.util.concurrent.atomic.AtomicReference<Throwable> failed =
        new java.util.concurrent.atomic.AtomicReference<>();
    reader.setUncaughtExceptionHandler((th, e) -> failed.set(e));
    reader.start();
    awaitStalled(blob);
    // The client has not read anything yet and the sender has stopped: only socket buffers (a
    // few MiB on loopback) and the relay's water marks or one pipe hold data, never 96 MiB.
    assertThat(blob.sent.get()).isLessThan(40L << 20);
    checked.countDown();
    reader.join(30000);
    assertThat(failed.get()).isNull();
    assertThat(reader.isAlive()).isFalse();
  }

  @Test
  void halfClosedDownloadArrivesWhole() throws Exception {
    BlobServer blob = cleanup.track(new BlobServer());
    ProxyTable t = table(options(), null);
    ServiceKey k = anyPort();
    InetSocketAddress vip = serve(t, k, "rr", blob.address());
    download(vip, 3L << 20, null, true);
  }

  /**
   * Netty 4.2.18 drops a half-closed channel from epoll and then fails to re-arm it; without {@link
   * KeptEpollChannels} this download ends after about 4 MB.
   */
  @Test
  void halfClosedSlowReaderGetsTheWholeDownload() throws Exception {
    BlobServer blob = cleanup.track(new BlobServer());
    ProxyTable t = table(options(), null);
    ServiceKey k = anyPort();
    InetSocketAddress vip = serve(t, k, "rr", blob.address());
    download(vip, 96L << 20, blob, true);
  }

  /**
   * The backend answers and sends its FIN first, then reads what the client still uploads, slower
   * than the client sends it: the relay writes to a backend connection whose input has ended, held
   * back by backpressure. All of the upload, then the client's FIN, must arrive. The bound is the
   * idle timeout: a relay that stalls is closed by it, and the backend sees the end early.
   *
   * <p>Epoll only: on io_uring Netty 4.2.18 can stop writing to the backend for good here (1 of 2
   * runs stalled; docs/testing.md, "io_uring: a write after the peer's FIN", and {@link
   * io.fairway.proxy.l4.RelayFinBackpressureTest}, which reproduces it).
   */
  @Test
  void anUploadAfterTheBackendsFinArrivesWhole() throws Exception {
    org.junit.jupiter.api.Assumptions.assumeTrue(
        Transport.EPOLL || Boolean.getBoolean("fairway.test.uringFinStall"),
        "io_uring: Netty 4.2.18 stalls this upload (docs/testing.md, \"io_uring: a write after the"
            + " peer's FIN\"); -Dfairway.test.uringFinStall=true runs it");
    Duration idle = Duration.ofSeconds(10);
    ProxyTable t = table(options().toBuilder().idleTimeout(idle).build(), null);
    try (ServerSocket backend = new ServerSocket()) {
      backend.setReceiveBufferSize(4096);
      backend.bind(new InetSocketAddress(Fixtures.LO, 0), 1);
      InetSocketAddress vip =
          serve(t, anyPort(), "rr", (InetSocketAddress) backend.getLocalSocketAddress());
      byte[] upload = new byte[8 << 20];
      try (java.net.Socket c = new java.net.Socket()) {
        c.connect(vip, 2000);
        c.setSoTimeout((int) idle.multipliedBy(3).toMillis());
        try (java.net.Socket s = backend.accept()) {
          s.setSoTimeout((int) idle.multipliedBy(3).toMillis());
          s.getOutputStream().write("done\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
          s.shutdownOutput();
          // The client has the answer and the FIN: the proxy has read the backend's FIN.
          assertThat(c.getInputStream().readAllBytes()).hasSize(5);
          java.util.concurrent.atomic.AtomicLong sent =
              new java.util.concurrent.atomic.AtomicLong();
          Thread writer =
              new Thread(
                  () -> {
                    try {
                      for (int off = 0; off < upload.length; off += 65536) {
                        c.getOutputStream().write(upload, off, 65536);
                        sent.addAndGet(65536);
                      }
                      c.shutdownOutput();
                    } catch (IOException e) {
                      // seen as a short upload below
                    }
                  });
          writer.setDaemon(true);
          writer.start();
          // The backend reads only once the client's writes have stopped: every buffer on the
          // way is full, and the proxy must wait for the backend connection to drain.
          long[] last = {-1};
          await()
              .atMost(Duration.ofSeconds(30))
              .pollInterval(Duration.ofMillis(200))
              .until(
                  () -> {
                    long now = sent.get();
                    boolean settled = now == last[0] || now == upload.length;
                    last[0] = now;
                    return settled;
                  });
          long read = 0;
          java.io.InputStream in = s.getInputStream();
          byte[] buf = new byte[65536];
          for (int n; (n = in.read(buf)) > 0; ) {
            read += n;
          }
          assertThat(read).as("upload bytes before the end").isEqualTo(upload.length);
          writer.join(idle.toMillis());
        }
      }
    }
  }

  @Test
  void idleConnectionsCloseActiveOnesStay() throws Exception {
    Duration timeout = Duration.ofSeconds(2);
    ProxyTable t = table(options().toBuilder().idleTimeout(timeout).build(), null);
    InetSocketAddress vip = serve(t, anyPort(), "rr", b1);
    Conn idle = cleanup.track(new Conn(vip));
    Conn busy = cleanup.track(new Conn(vip));
    long start = System.nanoTime();
    // Traffic on the busy one every tenth of the timeout (paced traffic, not a wait for an
    // event) until one and a half timeouts have passed: a stall would have to last more than
    // 0.9 timeouts to close it.
    for (int i = 0; System.nanoTime() - start < timeout.toNanos() * 3 / 2; i++) {
      Thread.sleep(timeout.toMillis() / 10);
      assertThat(busy.echo("tick " + i)).isEqualTo("tick " + i);
    }
    // The idle one was closed (after one timeout), the busy one is still relaying.
    assertThat(idle.in.read()).isEqualTo(-1);
    assertThat(busy.echo("still")).isEqualTo("still");
  }

  private interface Op {
    void run() throws TableException;
  }

  private static TableException.Reason reason(Op op) {
    try {
      op.run();
      return null;
    } catch (TableException e) {
      return e.reason();
    }
  }

  private static DestEntry entry(ProxyTable t, ServiceKey k, InetSocketAddress a) {
    return entry(t, k, key(a));
  }

  private static DestEntry entry(ProxyTable t, ServiceKey k, io.fairway.table.DestKey dk) {
    return t.list().stream()
        .filter(s -> s.service().key().equals(k))
        .flatMap(s -> s.dests().stream())
        .filter(d -> d.dest().key().equals(dk))
        .findFirst()
        .orElseThrow();
  }

  @SuppressWarnings("unused")
  private static boolean timesOut(Conn c) throws IOException {
    try {
      return c.in.read() < 0;
    } catch (SocketTimeoutException e) {
      return true;
    }
  }
}
