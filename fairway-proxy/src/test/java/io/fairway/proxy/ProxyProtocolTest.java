package io.fairway.proxy;

import static io.fairway.proxy.Fixtures.anyPort;
import static io.fairway.proxy.Fixtures.dest;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fairway.config.model.ProxyProtocol;
import io.fairway.config.model.ProxySettings;
import io.fairway.plan.MemberPlan;
import io.fairway.proxy.plane.ProxyTable;
import io.fairway.proxy.proxyprotocol.ProxyProtocolStats;
import io.fairway.proxy.table.ListenerSpec;
import io.fairway.proxy.table.RequestKey;
import io.fairway.table.Dest;
import io.fairway.table.DestKey;
import io.fairway.table.Service;
import io.fairway.table.ServiceKey;
import io.fairway.testkit.ExternalPrograms;
import io.fairway.testkit.HttpBackend;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code proxy_protocol accept} and {@code send_proxy}: HAProxy 2.6 with {@code send-proxy} and
 * {@code send-proxy-v2} in front of Fairway (HTTP and L4), the client address it names reaching the
 * backend; and the hostile cases, each refused, bounded by the header's deadline and counted.
 *
 * <p>Clients connect from 127.0.0.7, HAProxy connects to Fairway from 127.0.0.1: a backend that
 * sees 127.0.0.7 saw the address the PROXY header named.
 */
class ProxyProtocolTest {
  @AutoClose final Cleanup cleanup = new Cleanup();
  @TempDir Path dir;

  private static final InetAddress CLIENT = address("127.0.0.7");
  private static final Duration DEADLINE = Duration.ofMillis(500);

  private ProxyTable table;

  private static InetAddress address(String s) {
    try {
      return InetAddress.getByName(s);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A service accepting PROXY headers (deadline {@link #DEADLINE}) before one real server. */
  private InetSocketAddress fairway(
      ListenerSpec base, InetSocketAddress backend, ProxyProtocol.Version send) throws Exception {
    ServiceKey k = anyPort();
    Dest d = dest(backend, 1);
    String name = backend.getAddress().getHostAddress() + ":" + backend.getPort();
    MemberPlan m =
        MemberPlan.builder(name, d).weight(1).proxyProtocol(ProxyProtocol.sending(send)).build();
    ProxySettings.Timeouts t =
        new ProxySettings.Timeouts(
            Optional.of(DEADLINE),
            Optional.empty(),
            OptionalLong.empty(),
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            Optional.empty());
    ListenerSpec spec =
        new ListenerSpec(
            base.mode(),
            base.keySource(),
            null,
            Map.<DestKey, MemberPlan>of(d.key(), m),
            null,
            new ProxySettings(t, false, new ProxyProtocol(true, null)));
    table =
        cleanup.track(
            new ProxyTable(
                ProxyOptions.builder().ioThreads(1).spliceThreshold(-1).build(), x -> spec));
    table.addService(Service.of(k, "rr"));
    table.addDest(k, d);
    return table.boundAddress(k);
  }

  private ProxyProtocolStats.Counts counts() {
    return table.proxyProtocolStats().values().iterator().next();
  }

  /** HAProxy in TCP mode on a free port, sending {@code sendProxy} to {@code to}. */
  private InetSocketAddress haproxy(InetSocketAddress to, String sendProxy) throws Exception {
    Path bin = ExternalPrograms.require("haproxy", "/usr/sbin/haproxy");
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    Path cfg = dir.resolve("haproxy.cfg");
    Files.writeString(
        cfg,
        String.join(
            "\n",
            "defaults",
            "  mode tcp",
            "  timeout connect 5s",
            "  timeout client 10s",
            "  timeout server 10s",
            "frontend f",
            "  bind 127.0.0.1:" + port,
            "  default_backend b",
            "backend b",
            "  server fairway 127.0.0.1:" + to.getPort() + " " + sendProxy,
            ""));
    Process p =
        new ProcessBuilder(bin.toString(), "-db", "-f", cfg.toString())
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("haproxy.log").toFile())
            .start();
    cleanup.track((AutoCloseable) p::destroyForcibly);
    InetSocketAddress at = new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
    await()
        .atMost(Duration.ofSeconds(10))
        .ignoreExceptions()
        .until(
            () -> {
              try (Socket s = new Socket()) {
                s.connect(at, 500);
                return true;
              }
            });
    return at;
  }

  /** A connection from {@link #CLIENT}. */
  private static Socket fromClient(InetSocketAddress to) throws IOException {
    Socket s = new Socket();
    s.bind(new InetSocketAddress(CLIENT, 0));
    s.setSoTimeout(10_000);
    s.connect(to, 5000);
    return s;
  }

  private static String exchange(InetSocketAddress to, String send) throws IOException {
    try (Socket s = fromClient(to)) {
      s.getOutputStream().write(send.getBytes(StandardCharsets.ISO_8859_1));
      return new String(s.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
    }
  }

  private void httpBehindHaproxy(String sendProxy) throws Exception {
    HttpBackend b = cleanup.track(new HttpBackend("b1"));
    InetSocketAddress vip =
        fairway(ListenerSpec.http(RequestKey.CLIENT), b.address(), ProxyProtocol.Version.NONE);
    InetSocketAddress front = haproxy(vip, sendProxy);
    String r =
        exchange(front, "GET /headers HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            .toLowerCase(java.util.Locale.ROOT);
    assertThat(r).startsWith("http/1.1 200").contains("x-forwarded-for: 127.0.0.7");
    // At least: HAProxy may also have passed on the readiness probe's connection.
    assertThat(counts().accepted()).isPositive();
    assertThat(counts().invalid()).isZero();
  }

  @Test
  void httpBehindHaproxySendProxy() throws Exception {
    httpBehindHaproxy("send-proxy");
  }

  @Test
  void httpBehindHaproxySendProxyV2() throws Exception {
    httpBehindHaproxy("send-proxy-v2");
  }

  /**
   * nginx with {@code listen ... proxy_protocol}, answering with the address the PROXY header named
   * ({@code $proxy_protocol_addr}) and the connection's own peer ({@code $remote_addr}).
   */
  private Nginx nginxWithProxyProtocol() throws Exception {
    Nginx.require();
    return cleanup.track(
        new Nginx(
            "pp",
            "proxy_protocol",
            "location / { default_type text/plain;"
                + " return 200 'pp=$proxy_protocol_addr:$proxy_protocol_port"
                + " peer=$remote_addr\\n'; }"));
  }

  @Test
  void httpFromHaproxyToNginxWithProxyProtocolCarriesTheClientThroughBoth() throws Exception {
    Nginx nginx = nginxWithProxyProtocol();
    InetSocketAddress vip =
        fairway(ListenerSpec.http(RequestKey.CLIENT), nginx.address(), ProxyProtocol.Version.V1);
    InetSocketAddress front = haproxy(vip, "send-proxy-v2");
    String r = exchange(front, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    // HAProxy named 127.0.0.7 to Fairway (v2), Fairway named it to nginx (v1).
    assertThat(r).startsWith("HTTP/1.1 200").contains("pp=127.0.0.7:").contains(" peer=127.0.0.1");
  }

  @Test
  void l4ToNginxWithProxyProtocolV2NamesTheAddressTheClientsHeaderNamed() throws Exception {
    Nginx nginx = nginxWithProxyProtocol();
    InetSocketAddress vip = fairway(ListenerSpec.tcp(), nginx.address(), ProxyProtocol.Version.V2);
    String r =
        exchange(
            vip,
            "PROXY TCP4 192.0.2.7 127.0.0.1 40007 80\r\n"
                + "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    assertThat(r).startsWith("HTTP/1.1 200").contains("pp=192.0.2.7:40007 peer=127.0.0.1");
  }

  /** A backend that answers each connection with the first line it got, then closes. */
  private InetSocketAddress firstLineBackend() throws IOException {
    ServerSocket ss = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    cleanup.track(ss);
    Thread t =
        new Thread(
            () -> {
              while (!ss.isClosed()) {
                try (Socket s = ss.accept()) {
                  String line =
                      new BufferedReader(
                              new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII))
                          .readLine();
                  OutputStream out = s.getOutputStream();
                  out.write((line + "\n").getBytes(StandardCharsets.US_ASCII));
                } catch (IOException e) {
                  // closed
                }
              }
            },
            "first-line-backend");
    t.setDaemon(true);
    t.start();
    return (InetSocketAddress) ss.getLocalSocketAddress();
  }

  @Test
  void l4BehindHaproxySendProxyV2PassesTheClientOnWithSendProxyV1() throws Exception {
    InetSocketAddress vip =
        fairway(ListenerSpec.tcp(), firstLineBackend(), ProxyProtocol.Version.V1);
    InetSocketAddress front = haproxy(vip, "send-proxy-v2");
    String got = exchange(front, "");
    // PROXY TCP4 <client> <haproxy's address> <client port> <haproxy's port>
    assertThat(got).startsWith("PROXY TCP4 127.0.0.7 127.0.0.1 ");
    assertThat(got.trim()).endsWith(" " + front.getPort());
    assertThat(counts().accepted()).isPositive();
  }

  @Test
  void l4WithoutAcceptSendsTheSocketPeer() throws Exception {
    ServiceKey k = anyPort();
    InetSocketAddress backend = firstLineBackend();
    Dest d = dest(backend, 1);
    MemberPlan m =
        MemberPlan.builder("b", d)
            .weight(1)
            .proxyProtocol(ProxyProtocol.sending(ProxyProtocol.Version.V1))
            .build();
    ListenerSpec spec =
        new ListenerSpec(
            io.fairway.proxy.table.Mode.TCP, RequestKey.CLIENT, null, Map.of(d.key(), m), null);
    ProxyTable t =
        cleanup.track(
            new ProxyTable(
                ProxyOptions.builder().ioThreads(1).spliceThreshold(-1).build(), x -> spec));
    t.addService(Service.of(k, "rr"));
    t.addDest(k, d);
    InetSocketAddress vip = t.boundAddress(k);
    try (Socket s = fromClient(vip)) {
      String got =
          new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII))
              .readLine();
      assertThat(got)
          .isEqualTo("PROXY TCP4 127.0.0.7 127.0.0.1 " + s.getLocalPort() + " " + vip.getPort());
    }
  }

  @Test
  void localCommandKeepsTheConnectionsOwnAddress() throws Exception {
    InetSocketAddress vip =
        fairway(ListenerSpec.tcp(), firstLineBackend(), ProxyProtocol.Version.V1);
    byte[] local = {
      0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A, 0x20, 0x00, 0x00, 0x00
    };
    try (Socket s = fromClient(vip)) {
      s.getOutputStream().write(local);
      String got =
          new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII))
              .readLine();
      assertThat(got).startsWith("PROXY TCP4 127.0.0.7 127.0.0.1 " + s.getLocalPort() + " ");
    }
    assertThat(counts().accepted()).isEqualTo(1);
  }

  /** Sends {@code bytes} and expects the connection closed within the deadline and some slack. */
  private static void refused(InetSocketAddress vip, byte[] bytes) throws IOException {
    try (Socket s = fromClient(vip)) {
      s.getOutputStream().write(bytes);
      long start = System.nanoTime();
      assertThat(s.getInputStream().read()).isEqualTo(-1);
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    } catch (java.net.SocketException reset) {
      // a reset is a refusal too
    }
  }

  @Test
  void hostileHeadersAreRefusedAndCounted() throws Exception {
    HttpBackend b = cleanup.track(new HttpBackend("b1"));
    InetSocketAddress vip =
        fairway(ListenerSpec.http(RequestKey.CLIENT), b.address(), ProxyProtocol.Version.NONE);
    // Garbage before it: a client speaking HTTP directly.
    refused(vip, "GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
    // A v1 header that never ends: over 107 bytes without CRLF.
    refused(vip, ("PROXY TCP4 " + "1".repeat(200)).getBytes(StandardCharsets.US_ASCII));
    // A v2 header announcing 65,535 bytes, then sending them: refused at the size bound.
    byte[] v2 = new byte[16 + 8192];
    System.arraycopy(
        new byte[] {0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A},
        0,
        v2,
        0,
        12);
    v2[12] = 0x21;
    v2[13] = 0x11;
    v2[14] = (byte) 0xff;
    v2[15] = (byte) 0xff;
    refused(vip, v2);
    // A header begun and never finished: refused at the deadline.
    refused(vip, "PROXY TCP4 1.2.3.4".getBytes(StandardCharsets.US_ASCII));
    await()
        .atMost(Duration.ofSeconds(5))
        .untilAsserted(
            () -> {
              ProxyProtocolStats.Counts c = counts();
              assertThat(c.invalid()).isEqualTo(3);
              assertThat(c.timedOut()).isEqualTo(1);
              assertThat(c.accepted()).isZero();
            });
    assertThat(b.requests.get()).isZero();
  }

  @Test
  void aThousandSilentConnectionsEndAtTheDeadline() throws Exception {
    HttpBackend b = cleanup.track(new HttpBackend("b1"));
    InetSocketAddress vip =
        fairway(ListenerSpec.http(RequestKey.CLIENT), b.address(), ProxyProtocol.Version.NONE);
    List<Socket> silent = new ArrayList<>();
    try {
      for (int i = 0; i < 1000; i++) {
        Socket s = new Socket();
        silent.add(s);
        s.connect(vip, 5000);
      }
      await()
          .atMost(Duration.ofSeconds(20))
          .untilAsserted(() -> assertThat(counts().timedOut()).isEqualTo(1000));
      for (Socket s : silent) {
        s.setSoTimeout(5000);
        assertThat(s.getInputStream().read()).isEqualTo(-1);
      }
    } finally {
      for (Socket s : silent) {
        s.close();
      }
    }
  }
}
