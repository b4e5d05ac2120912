package io.fairway.proxy;

import static io.fairway.proxy.Fixtures.anyPort;
import static io.fairway.proxy.Fixtures.dest;
import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.config.model.BackendTls;
import io.fairway.config.model.ProxyProtocol;
import io.fairway.config.model.base.Location;
import io.fairway.plan.MemberPlan;
import io.fairway.proxy.plane.ProxyTable;
import io.fairway.proxy.table.ListenerSpec;
import io.fairway.proxy.table.Mode;
import io.fairway.proxy.table.RequestKey;
import io.fairway.table.Dest;
import io.fairway.table.Service;
import io.fairway.table.ServiceKey;
import io.fairway.testkit.TestCerts;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Re-encryption ({@code real_server ... { tls { verify CA sni NAME } }}) to a real nginx that
 * serves TLS: HTTP and L4 reach it verified, with the SNI it answers by; a server whose certificate
 * does not chain to the CA, or does not carry the name, gets nothing; with {@code send_proxy} the
 * PROXY header precedes the ClientHello.
 */
class ReencryptionTest {
  @AutoClose final Cleanup cleanup = new Cleanup();
  @TempDir static Path dir;

  /** The backend's certificate, self-signed: it is its own CA. */
  static TestCerts.Pair app;

  /** Another CA, which did not sign the backend's certificate. */
  static TestCerts.Pair other;

  @BeforeAll
  static void certs() throws Exception {
    app = TestCerts.make(dir, "app", TestCerts.Kind.EC_PKCS8, "app.internal", "app.internal");
    other = TestCerts.make(dir, "other", TestCerts.Kind.EC_PKCS8, "other", "other");
  }

  /** nginx serving TLS with {@link #app}, answering with the protocol and the SNI it got. */
  private Nginx nginx() throws Exception {
    Nginx.require();
    return cleanup.track(
        new Nginx(
            "tls",
            "ssl",
            "ssl_certificate "
                + app.cert()
                + "; ssl_certificate_key "
                + app.key()
                + "; location / { default_type text/plain;"
                + " return 200 'tls=$ssl_protocol sni=$ssl_server_name\\n'; }"));
  }

  private InetSocketAddress fairway(Mode mode, InetSocketAddress backend, BackendTls tls)
      throws Exception {
    return fairway(mode, backend, tls, ProxyProtocol.Version.NONE);
  }

  private InetSocketAddress fairway(
      Mode mode, InetSocketAddress backend, BackendTls tls, ProxyProtocol.Version send)
      throws Exception {
    ServiceKey k = anyPort();
    Dest d = dest(backend, 1);
    MemberPlan m =
        MemberPlan.builder("app", d)
            .weight(1)
            .proxyProtocol(ProxyProtocol.sending(send))
            .tls(Optional.of(tls))
            .build();
    ListenerSpec spec = new ListenerSpec(mode, RequestKey.CLIENT, null, Map.of(d.key(), m), null);
    ProxyTable t =
        cleanup.track(new ProxyTable(ProxyOptions.builder().ioThreads(1).build(), x -> spec));
    t.addService(Service.of(k, "rr"));
    t.addDest(k, d);
    return t.boundAddress(k);
  }

  private static BackendTls tls(TestCerts.Pair ca, String sni) {
    return new BackendTls(
        new Location("test.conf", 1), ca.cert().toString(), Optional.ofNullable(sni), "d");
  }

  /** Sends a request and reads until the proxy closes. */
  private static String get(InetSocketAddress vip) throws IOException {
    try (Socket s = new Socket()) {
      s.connect(vip, 5000);
      s.setSoTimeout(20_000);
      s.getOutputStream()
          .write(
              "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                  .getBytes(StandardCharsets.ISO_8859_1));
      return new String(s.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
    }
  }

  @Test
  void httpReachesNginxOverVerifiedTlsWithItsSni() throws Exception {
    Nginx n = nginx();
    String r = get(fairway(Mode.HTTP, n.address(), tls(app, "app.internal")));
    assertThat(r).startsWith("HTTP/1.1 200").contains("sni=app.internal").contains("tls=TLSv1.");
  }

  @Test
  void l4ReachesNginxOverVerifiedTlsWithItsSni() throws Exception {
    Nginx n = nginx();
    String r = get(fairway(Mode.TCP, n.address(), tls(app, "app.internal")));
    assertThat(r).startsWith("HTTP/1.1 200").contains("sni=app.internal").contains("tls=TLSv1.");
  }

  static Stream<Arguments> planesAndVersions() {
    return Stream.of(Mode.HTTP, Mode.TCP)
        .flatMap(
            m ->
                Stream.of(ProxyProtocol.Version.V1, ProxyProtocol.Version.V2)
                    .map(v -> Arguments.of(m, v)));
  }

  /**
   * {@code send_proxy} with {@code tls} on one server, on both planes: the PROXY header goes in
   * clear before the ClientHello (the order HAProxy sends them in), which nginx's {@code listen ...
   * ssl proxy_protocol} requires: it reads the header, then terminates TLS. nginx names the address
   * and port the header carried, which are the test client's own; without the header the same nginx
   * refuses the connection, so the header is what let the request through.
   */
  @ParameterizedTest
  @MethodSource("planesAndVersions")
  void sendProxyGoesInClearBeforeTheClientHello(Mode mode, ProxyProtocol.Version send)
      throws Exception {
    Nginx.require();
    Nginx n =
        cleanup.track(
            new Nginx(
                "tls-proxy-protocol",
                "ssl proxy_protocol",
                "ssl_certificate "
                    + app.cert()
                    + "; ssl_certificate_key "
                    + app.key()
                    + "; location / { default_type text/plain; return 200"
                    + " 'pp=$proxy_protocol_addr:$proxy_protocol_port tls=$ssl_protocol"
                    + " sni=$ssl_server_name\\n'; }"));
    InetSocketAddress vip = fairway(mode, n.address(), tls(app, "app.internal"), send);
    try (Socket s = new Socket()) {
      s.connect(vip, 5000);
      s.setSoTimeout(20_000);
      s.getOutputStream()
          .write(
              "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                  .getBytes(StandardCharsets.ISO_8859_1));
      String r = new String(s.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
      assertThat(r)
          .startsWith("HTTP/1.1 200")
          .contains("pp=127.0.0.1:" + s.getLocalPort() + " ")
          .contains("sni=app.internal")
          .contains("tls=TLSv1.");
    }
    String without;
    try {
      without = get(fairway(mode, n.address(), tls(app, "app.internal")));
    } catch (java.net.SocketException reset) {
      without = ""; // L4: nginx closed the handshake, and the relay the client's connection
    }
    if (mode == Mode.HTTP) {
      assertThat(without)
          .as("the same nginx without a PROXY header before the ClientHello")
          .startsWith("HTTP/1.1 502");
    } else {
      assertThat(without).as("the same nginx without a PROXY header, over L4").isEmpty();
    }
  }

  @Test
  void aCertificateFromAnotherCaOrForAnotherNameGetsNoRequest() throws Exception {
    Nginx n = nginx();
    assertThat(get(fairway(Mode.HTTP, n.address(), tls(other, "app.internal"))))
        .startsWith("HTTP/1.1 502");
    assertThat(get(fairway(Mode.HTTP, n.address(), tls(app, "wrong.internal"))))
        .startsWith("HTTP/1.1 502");
    // L4: the only server failed its handshake, so the client's connection is closed unanswered
    // (reset, since the request it sent was never read).
    String l4;
    try {
      l4 = get(fairway(Mode.TCP, n.address(), tls(other, "app.internal")));
    } catch (java.net.SocketException reset) {
      l4 = "";
    }
    assertThat(l4).isEmpty();
  }
}
