package io.fairway.proxy;

import static io.fairway.proxy.Fixtures.anyPort;
import static io.fairway.proxy.Fixtures.dest;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fairway.config.model.ProxySettings;
import io.fairway.proxy.plane.ProxyTable;
import io.fairway.proxy.table.ListenerSpec;
import io.fairway.proxy.tls.ServerTls;
import io.fairway.proxy.tls.TlsStats;
import io.fairway.table.Service;
import io.fairway.table.ServiceKey;
import io.fairway.testkit.HttpBackend;
import io.fairway.testkit.TestCerts;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * TLS in front of an L4 service ({@code lb_kind PROXY}): the relay carries the decrypted stream,
 * and clients that never finish a handshake are closed by the handshake timeout, counted, and never
 * cost a backend connection.
 */
class TlsL4Test {
  @AutoClose final Cleanup cleanup = new Cleanup();
  @TempDir static Path dir;
  static TestCerts.Pair a;

  @BeforeAll
  static void certs() throws Exception {
    a = TestCerts.make(dir, "a", TestCerts.Kind.EC_PKCS8, "a.test", "a.test");
  }

  @Test
  void theRelayCarriesTheDecryptedStreamAndSilentClientsTimeOut() throws Exception {
    HttpBackend backend = cleanup.track(new HttpBackend("b1"));
    ListenerSpec spec =
        ListenerSpec.tcp()
            .withProxy(ProxySettings.DEFAULTS.withTls(TlsTerminationTest.settings(a)));
    ProxyTable t =
        cleanup.track(new ProxyTable(ProxyOptions.builder().ioThreads(1).build(), k -> spec));
    ServiceKey k = anyPort();
    t.addService(Service.of(k, "rr"));
    t.addDest(k, dest(backend.address(), 1));
    InetSocketAddress vip = t.boundAddress(k);

    Process p =
        new ProcessBuilder(
                "openssl", "s_client", "-quiet", "-connect", "127.0.0.1:" + vip.getPort())
            .redirectErrorStream(true)
            .start();
    p.getOutputStream()
        .write(
            "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                .getBytes(StandardCharsets.US_ASCII));
    p.getOutputStream().flush();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    // The relay half-closes the socket when the backend does, without a close_notify first
    // (openssl reports "unexpected eof"): a known gap, see docs/proxy.md.
    assertThat(out).contains("HTTP/1.1 200").contains("\r\n\r\nb1");
    assertThat(backend.requests.get()).isEqualTo(1);

    // Silent clients: a TCP connection and nothing else, then half a ClientHello.
    TlsStats stats = t.tlsStats();
    List<Socket> silent = new ArrayList<>();
    try {
      for (int i = 0; i < 100; i++) {
        Socket s = new Socket();
        s.connect(vip, 2000);
        if (i % 2 == 1) {
          s.getOutputStream().write(new byte[] {0x16, 0x03, 0x01, 0x02, 0x00, 0x01});
        }
        silent.add(s);
      }
      await().atMost(Duration.ofSeconds(5)).until(() -> t.openConnections() >= 100);
      await()
          .atMost(Duration.ofMillis(ServerTls.HANDSHAKE_TIMEOUT_MILLIS + 10_000))
          .until(() -> stats.failures(TlsStats.Failure.TIMEOUT) >= 100);
      for (Socket s : silent) {
        s.setSoTimeout(5000);
        assertThat(s.getInputStream().read()).as("closed by the timeout").isEqualTo(-1);
      }
      assertThat(backend.requests.get()).as("no backend connection for them").isEqualTo(1);
    } finally {
      for (Socket s : silent) {
        s.close();
      }
    }
  }
}
