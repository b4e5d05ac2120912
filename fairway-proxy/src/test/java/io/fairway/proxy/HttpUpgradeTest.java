package io.fairway.proxy;

import static io.fairway.proxy.Fixtures.anyPort;
import static io.fairway.proxy.Fixtures.dest;
import static io.fairway.proxy.Fixtures.key;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fairway.proxy.plane.ProxyTable;
import io.fairway.proxy.table.ListenerSpec;
import io.fairway.proxy.table.RequestKey;
import io.fairway.table.DestEntry;
import io.fairway.table.Service;
import io.fairway.table.ServiceKey;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * Protocol-switch passthrough (WebSocket and any {@code Connection: upgrade}) over loopback: a real
 * WebSocket server and client, nginx in the path, and a raw-socket backend whose bytes the tests
 * choose.
 */
class HttpUpgradeTest {
  private static final String UPGRADE =
      "GET /chat HTTP/1.1\r\nHost: x\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\n";
  private static final String SWITCHED =
      "HTTP/1.1 101 Switching Protocols\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\n";
  @AutoClose final Cleanup cleanup = new Cleanup();
  private ProxyTable table;
  private ServiceKey key;

  private InetSocketAddress serve(ProxyOptions o, InetSocketAddress... backends) throws Exception {
    table =
        cleanup.track(
            new ProxyTable(
                o.toBuilder().ioThreads(1).build(), k -> ListenerSpec.http(RequestKey.CLIENT)));
    key = anyPort();
    table.addService(Service.of(key, "rr"));
    for (InetSocketAddress b : backends) {
      table.addDest(key, dest(b, 1));
    }
    return table.boundAddress(key);
  }

  private InetSocketAddress serve(InetSocketAddress... backends) throws Exception {
    return serve(ProxyOptions.defaults(), backends);
  }

  private DestEntry entry(InetSocketAddress backend) {
    return table.list().get(0).dests().stream()
        .filter(d -> d.dest().port() == backend.getPort())
        .findFirst()
        .orElseThrow();
  }

  private static Socket connect(InetSocketAddress vip) throws IOException {
    Socket s = new Socket();
    s.connect(vip, 2000);
    s.setSoTimeout(5000);
    return s;
  }

  private static void send(Socket s, String what) throws IOException {
    s.getOutputStream().write(what.getBytes(StandardCharsets.ISO_8859_1));
    s.getOutputStream().flush();
  }

  private static String read(Socket s, int n) throws IOException {
    byte[] b = s.getInputStream().readNBytes(n);
    return new String(b, StandardCharsets.ISO_8859_1);
  }

  /** A raw tunnel through the proxy to an {@link UpgradeBackend}, past its 101 and HELLO. */
  private static Socket tunnel(InetSocketAddress vip) throws IOException {
    Socket s = connect(vip);
    send(s, UPGRADE);
    assertThat(read(s, SWITCHED.length() + 5)).isEqualTo(SWITCHED + "HELLO");
    return s;
  }

  @Test
  void webSocketRoundTripThroughTheProxy() throws Exception {
    WebSocketEchoServer ws = cleanup.track(new WebSocketEchoServer());
    Duration idle = Duration.ofSeconds(30);
    InetSocketAddress vip = serve(ProxyOptions.builder().idleTimeout(idle).build(), ws.address());
    BlockingQueue<String> got = new LinkedBlockingQueue<>();
    WebSocket.Listener listener =
        new WebSocket.Listener() {
          private final StringBuilder text = new StringBuilder();

          @Override
          public CompletionStage<?> onText(WebSocket w, CharSequence data, boolean last) {
            text.append(data);
            if (last) {
              got.add(text.toString());
              text.setLength(0);
            }
            w.request(1);
            return null;
          }
        };
    WebSocket w =
        HttpClient.newHttpClient()
            .newWebSocketBuilder()
            .buildAsync(URI.create("ws://127.0.0.1:" + vip.getPort() + "/ws"), listener)
            .get(5, TimeUnit.SECONDS);
    w.sendText("hello", true).get(5, TimeUnit.SECONDS);
    assertThat(got.poll(5, TimeUnit.SECONDS)).isEqualTo("echo:hello");
    // Bigger than the socket buffers both ways: the relay's backpressure, not a buffer, carries it.
    String big = "x".repeat(600_000);
    for (int i = 0; i < 3; i++) {
      w.sendText(big + i, true).get(5, TimeUnit.SECONDS);
    }
    for (int i = 0; i < 3; i++) {
      String m = got.poll(5, TimeUnit.SECONDS);
      assertThat(m).isNotNull();
      assertThat(m.length()).isEqualTo(big.length() + 6);
      assertThat(m.equals("echo:" + big + i)).as("message %d intact", i).isTrue();
    }
    assertThat(entry(ws.address()).activeConnections())
        .as("the tunnel is an established connection")
        .isEqualTo(1);
    w.sendClose(WebSocket.NORMAL_CLOSURE, "bye").get(5, TimeUnit.SECONDS);
    // The close handshake ends with the two FINs crossing (see
    // aTunnelWhoseFinsCrossIsClosedWhenBothSidesAreDone); only the idle timeout would close a
    // tunnel left half-open, so well within it is the bound.
    await()
        .atMost(idle.dividedBy(2))
        .untilAsserted(
            () ->
                assertThat(new int[] {ws.open.get(), entry(ws.address()).activeConnections()})
                    .as("backend connections open, tunnels active")
                    .containsExactly(0, 0));
    assertThat(entry(ws.address()).inactiveConnections())
        .as("closed like an L4 connection")
        .isEqualTo(1);
  }

  @Test
  void webSocketThroughFairwayAndNginx() throws Exception {
    Nginx.require();
    WebSocketEchoServer ws = cleanup.track(new WebSocketEchoServer());
    // nginx switches only if the request reaching it asks to, and its own backend agrees.
    Nginx n =
        cleanup.track(
            new Nginx(
                "ws",
                "location /ws { proxy_pass http://127.0.0.1:"
                    + ws.address().getPort()
                    + ";"
                    + " proxy_http_version 1.1; proxy_set_header Upgrade $http_upgrade; proxy_set_header Connection \"upgrade\"; }"));
    InetSocketAddress vip = serve(n.address());
    BlockingQueue<String> got = new LinkedBlockingQueue<>();
    WebSocket w =
        HttpClient.newHttpClient()
            .newWebSocketBuilder()
            .buildAsync(
                URI.create("ws://127.0.0.1:" + vip.getPort() + "/ws"),
                new WebSocket.Listener() {
                  @Override
                  public CompletionStage<?> onText(WebSocket w, CharSequence data, boolean last) {
                    got.add(data.toString());
                    w.request(1);
                    return null;
                  }
                })
            .get(5, TimeUnit.SECONDS);
    for (int i = 0; i < 5; i++) {
      w.sendText("m" + i, true).get(5, TimeUnit.SECONDS);
      assertThat(got.poll(5, TimeUnit.SECONDS)).isEqualTo("echo:m" + i);
    }
    w.sendClose(WebSocket.NORMAL_CLOSURE, "bye").get(5, TimeUnit.SECONDS);
    await().atMost(Duration.ofSeconds(5)).until(() -> ws.open.get() == 0);
  }

  @Test
  void bytesAroundThe101KeepTheirOrder() throws Exception {
    UpgradeBackend b = cleanup.track(new UpgradeBackend(false));
    InetSocketAddress vip = serve(b.address());
    try (Socket s = connect(vip)) {
      // The client's first tunnel bytes in the same packet as its request; the backend's in the
      // same packet as its 101.
      send(s, UPGRADE + "EARLY");
      assertThat(read(s, SWITCHED.length() + 10)).isEqualTo(SWITCHED + "HELLOEARLY");
      send(s, "ping");
      assertThat(read(s, 4)).isEqualTo("ping");
      // The tunnel's backend connection is not in the pool: another client's request gets its own.
      assertThat(HttpHalfCloseTest.sendThenFin(vip, "GET / HTTP/1.1\r\nHost: x\r\n\r\n", 0))
          .endsWith("\r\n\r\nno");
      assertThat(b.connections.get()).isEqualTo(2);
      send(s, "pong");
      assertThat(read(s, 4)).isEqualTo("pong");
    }
    String head = b.heads.get(0);
    assertThat(head)
        .contains("\r\nUpgrade: echo\r\n")
        .contains("\r\nConnection: upgrade\r\n")
        .doesNotContain("Connection: Upgrade");
  }

  @Test
  void aDeclinedUpgradeIsAnOrdinaryResponseAndTheConnectionStaysHttp() throws Exception {
    UpgradeBackend b = cleanup.track(new UpgradeBackend(true));
    InetSocketAddress vip = serve(b.address());
    String ok = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nno";
    try (Socket s = connect(vip)) {
      // The next request sent right behind the upgrade one: held until the answer, then HTTP.
      send(s, UPGRADE + "GET /next HTTP/1.1\r\nHost: x\r\n\r\n");
      assertThat(read(s, ok.length() * 2)).isEqualTo(ok + ok);
      send(s, "GET /third HTTP/1.1\r\nHost: x\r\n\r\n");
      assertThat(read(s, ok.length())).isEqualTo(ok);
    }
    assertThat(b.heads).hasSize(3);
    assertThat(b.heads.get(0)).contains("Upgrade: echo");
    assertThat(b.heads.get(1)).startsWith("GET /next ").doesNotContainIgnoringCase("upgrade");
    assertThat(b.connections.get()).as("one pooled backend connection for all three").isEqualTo(1);
  }

  @Test
  void aTunnelClosedBySideClosesTheOther() throws Exception {
    UpgradeBackend b = cleanup.track(new UpgradeBackend(false));
    InetSocketAddress vip = serve(b.address());
    // The client closes: the backend sees the end.
    Socket s = tunnel(vip);
    s.close();
    assertThat(b.tunnelEnded.await(5, TimeUnit.SECONDS)).isTrue();
    // The backend closes: the client sees the end.
    try (Socket s2 = tunnel(vip)) {
      send(s2, "QUIT");
      assertThat(s2.getInputStream().read()).isEqualTo(-1);
    }
    await().atMost(Duration.ofSeconds(5)).until(() -> entry(b.address()).activeConnections() == 0);
  }

  /**
   * The two FINs of a tunnel cross while the proxy still holds bytes for the client, as they may at
   * the end of a WebSocket close handshake under load: the backend sends its last bytes and its FIN
   * while the client is not reading, and the client's FIN arrives only after that. Once both
   * directions have ended the proxy closes both connections, not the idle timeout (before the fix
   * each side's output was shut after its input had ended, and nothing closed the pair: the tunnel
   * held its backend connection and counted as active).
   *
   * <p>The client's FIN comes after an upload that the backend reads only once it has sent its own
   * FIN. Whether the proxy has read the backend's FIN while bytes for the client are still queued
   * depends on how much the kernel buffers on the way, so the downloads range over sizes around
   * that (with epoll it failed without the fix in 3 of 4 runs on this machine; a size that does not
   * fit is read early and just does not make the FINs cross).
   *
   * <p>On io_uring the upload is left out: there an upload held back by backpressure after the
   * backend's FIN stalls for good, a Netty 4.2.18 bug (the backend channel's POLLOUT poll completes
   * with POLLRDHUP alone and Netty never writes again; docs/testing.md, "io_uring: a write after
   * the peer's FIN", reproduced by {@link io.fairway.proxy.l4.RelayFinBackpressureTest}). The test
   * then checks only that a tunnel ended from both sides closes, with downloads the socket buffers
   * take whole (io_uring's data plane buffers less than epoll's direct sends, and the client here
   * reads only at the end).
   */
  @Test
  void aTunnelWhoseFinsCrossIsClosedWhenBothSidesAreDone() throws Exception {
    Duration idle = Duration.ofSeconds(30);
    byte[] upload = new byte[Transport.EPOLL ? 4 << 20 : 0];
    try (ServerSocket backend = FinCrossing.backend()) {
      InetSocketAddress b = (InetSocketAddress) backend.getLocalSocketAddress();
      InetSocketAddress vip = serve(ProxyOptions.builder().idleTimeout(idle).build(), b);
      int tunnels = 0;
      for (int size = 1 << 20; size <= 8 << 20; size *= 2) {
        byte[] download = new byte[Transport.EPOLL ? size : size >> 6];
        try (Socket c = FinCrossing.client(vip)) {
          send(c, UPGRADE);
          try (Socket s = FinCrossing.accept(backend)) {
            assertThat(UpgradeBackend.readHead(s.getInputStream())).startsWith("GET /chat ");
            s.getOutputStream().write(SWITCHED.getBytes(StandardCharsets.ISO_8859_1));
            assertThat(read(c, SWITCHED.length())).isEqualTo(SWITCHED);
            FinCrossing.exchange(
                c,
                s,
                upload,
                download,
                FinCrossing::toEnd,
                () -> "the upload, then the client's FIN");
          }
        }
        tunnels++;
        // Bounded by the idle timeout it must not take: a stuck pair would be closed only by it.
        await().atMost(idle.dividedBy(2)).until(() -> entry(b).activeConnections() == 0);
        assertThat(entry(b).inactiveConnections()).isEqualTo(tunnels);
      }
    }
  }

  @Test
  void aHalfClosedTunnelStillCarriesTheAnswer() throws Exception {
    UpgradeBackend b = cleanup.track(new UpgradeBackend(false));
    InetSocketAddress vip = serve(b.address());
    try (Socket s = tunnel(vip)) {
      send(s, "last words");
      s.shutdownOutput();
      assertThat(HttpHalfCloseTest.readToClose(s.getInputStream())).isEqualTo("last words<eof>");
    }
    // Half-closed, then slow to read a large download: all of it arrives.
    try (Socket s = tunnel(vip)) {
      send(s, "BIG");
      s.shutdownOutput();
      Thread.sleep(1500);
      String r = HttpHalfCloseTest.readToClose(s.getInputStream());
      assertThat(r.length()).isEqualTo(UpgradeBackend.BIG + 5);
      assertThat(r).endsWith("<eof>");
    }
    // Upgrade request, tunnel bytes and FIN all at once, before any answer.
    try (Socket s = connect(vip)) {
      send(s, UPGRADE + "early");
      s.shutdownOutput();
      assertThat(HttpHalfCloseTest.readToClose(s.getInputStream()))
          .isEqualTo(SWITCHED + "HELLOearly<eof>");
    }
  }

  @Test
  void drainKeepsATunnelAndRemovalClosesIt() throws Exception {
    UpgradeBackend b = cleanup.track(new UpgradeBackend(false));
    InetSocketAddress vip = serve(b.address());
    try (Socket s = tunnel(vip)) {
      table.setDest(key, dest(b.address(), 0));
      send(s, "still");
      assertThat(read(s, 5)).isEqualTo("still");
      assertThat(entry(b.address()).activeConnections()).isEqualTo(1);
      table.delDest(key, key(b.address()));
      assertThat(s.getInputStream().read()).isEqualTo(-1);
    }
    assertThat(b.tunnelEnded.await(5, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void anUpgradeWithABodySwitchesAfterTheBody() throws Exception {
    UpgradeBackend b = cleanup.track(new UpgradeBackend(false));
    InetSocketAddress vip = serve(b.address());
    try (Socket s = connect(vip)) {
      send(
          s,
          "POST /chat HTTP/1.1\r\nHost: x\r\nUpgrade: echo\r\nConnection: Upgrade\r\nContent-Length: 4\r\n\r\nbodyafter");
      assertThat(read(s, SWITCHED.length() + 10)).isEqualTo(SWITCHED + "HELLOafter");
    }
    assertThat(b.bodies.get(0)).isEqualTo("body");
    // Chunked too.
    try (Socket s = connect(vip)) {
      send(
          s,
          "POST /chat HTTP/1.1\r\nHost: x\r\nUpgrade: echo\r\nConnection: Upgrade\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nzz");
      assertThat(read(s, SWITCHED.length() + 7)).isEqualTo(SWITCHED + "HELLOzz");
    }
  }

  @Test
  void idleTunnelIsClosed() throws Exception {
    UpgradeBackend b = cleanup.track(new UpgradeBackend(false));
    Duration idle = Duration.ofSeconds(1);
    InetSocketAddress vip = serve(ProxyOptions.builder().idleTimeout(idle).build(), b.address());
    try (Socket s = tunnel(vip)) {
      // Traffic every tenth of the timeout (paced, not a wait for an event) keeps it open for
      // two timeouts.
      long start = System.nanoTime();
      while (System.nanoTime() - start < idle.toNanos() * 2) {
        Thread.sleep(idle.toMillis() / 10);
        send(s, "k");
        assertThat(read(s, 1)).isEqualTo("k");
      }
      // Then silence closes it (the socket's 5 s read timeout bounds the wait).
      assertThat(s.getInputStream().read()).isEqualTo(-1);
    }
  }

  @Test
  void connectIsRefusedAndAnHttp10UpgradeIgnored() throws Exception {
    UpgradeBackend b = cleanup.track(new UpgradeBackend(false));
    InetSocketAddress vip = serve(b.address());
    String r =
        HttpHalfCloseTest.sendThenFin(
            vip, "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n", 0);
    assertThat(r).startsWith("HTTP/1.1 501 ").contains("CONNECT is not supported");
    assertThat(b.connections.get()).isZero();
    // RFC 9110 7.8: a server must ignore Upgrade in an HTTP/1.0 request; so does the proxy.
    r =
        HttpHalfCloseTest.sendThenFin(
            vip, "GET /chat HTTP/1.0\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\n", 0);
    assertThat(r).startsWith("HTTP/1.1 200 OK").endsWith("no");
    assertThat(b.heads.get(0)).doesNotContainIgnoringCase("upgrade");
  }
}
