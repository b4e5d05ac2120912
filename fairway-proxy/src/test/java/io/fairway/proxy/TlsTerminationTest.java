package io.fairway.proxy;

import static io.fairway.proxy.Fixtures.anyPort;
import static io.fairway.proxy.Fixtures.dest;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fairway.config.model.ProxySettings;
import io.fairway.config.model.TlsSettings;
import io.fairway.config.model.base.Location;
import io.fairway.proxy.plane.ProxyTable;
import io.fairway.proxy.table.ListenerSpec;
import io.fairway.proxy.table.RequestKey;
import io.fairway.proxy.tls.ServerTls;
import io.fairway.proxy.tls.TlsStats;
import io.fairway.table.Service;
import io.fairway.table.ServiceKey;
import io.fairway.testkit.ExternalPrograms;
import io.fairway.testkit.HttpBackend;
import io.fairway.testkit.TestCerts;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * TLS termination on an HTTP listener, against openssl s_client and curl, with BoringSSL and with
 * the JDK's provider: SNI picks the certificate, no SNI gets the first, TLS 1.1 is refused and
 * counted, requests go through.
 */
class TlsTerminationTest {
  @AutoClose final Cleanup cleanup = new Cleanup();
  @TempDir static Path dir;
  static TestCerts.Pair a;
  static TestCerts.Pair b;

  @BeforeAll
  static void certs() throws Exception {
    a = TestCerts.make(dir, "a", TestCerts.Kind.RSA_PKCS8, "a.test", "a.test");
    b = TestCerts.make(dir, "b", TestCerts.Kind.EC_SEC1, "b.test", "*.b.test");
  }

  @AfterEach
  void provider() {
    System.clearProperty(ServerTls.FORCE_JDK);
  }

  static TlsSettings settings(TestCerts.Pair... pairs) {
    List<TlsSettings.Certificate> certs = new ArrayList<>();
    for (TestCerts.Pair p : pairs) {
      certs.add(
          new TlsSettings.Certificate(
              new Location("test.conf", 4), p.cert().toString(), p.key().toString(), "d"));
    }
    return new TlsSettings(certs, TlsSettings.DEFAULT_PROTOCOLS, List.of(), Optional.empty());
  }

  static String run(String... cmd) throws Exception {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    p.getOutputStream().close();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    return out + "\nexit=" + p.exitValue();
  }

  @ParameterizedTest(name = "jdk provider forced: {0}")
  @ValueSource(booleans = {false, true})
  void sniPicksTheCertificateAndOldProtocolsAreRefused(boolean jdk) throws Exception {
    ExternalPrograms.require("curl", "/usr/bin/curl");
    if (jdk) {
      System.setProperty(ServerTls.FORCE_JDK, "true");
    }
    assertThat(ServerTls.provider())
        .isEqualTo(
            jdk ? io.netty.handler.ssl.SslProvider.JDK : io.netty.handler.ssl.SslProvider.OPENSSL);
    HttpBackend backend = cleanup.track(new HttpBackend("b1"));
    ListenerSpec spec =
        ListenerSpec.http(RequestKey.CLIENT)
            .withProxy(ProxySettings.DEFAULTS.withTls(settings(a, b)));
    ProxyTable t =
        cleanup.track(new ProxyTable(ProxyOptions.builder().ioThreads(1).build(), k -> spec));
    ServiceKey k = anyPort();
    t.addService(Service.of(k, "rr"));
    t.addDest(k, dest(backend.address(), 1));
    InetSocketAddress vip = t.boundAddress(k);
    String connect = "127.0.0.1:" + vip.getPort();

    assertThat(run("openssl", "s_client", "-connect", connect, "-servername", "x.b.test"))
        .contains("CN = b.test")
        .contains("exit=0");
    assertThat(run("openssl", "s_client", "-connect", connect, "-noservername"))
        .contains("CN = a.test")
        .contains("exit=0");
    assertThat(run("openssl", "s_client", "-connect", connect, "-servername", "other.test"))
        .as("an unknown name gets the first certificate")
        .contains("CN = a.test");
    TlsStats stats = t.tlsStats();
    long failedBefore = stats.failures(TlsStats.Failure.PROTOCOL);
    assertThat(
            run(
                "openssl",
                "s_client",
                "-connect",
                connect,
                "-tls1_1",
                "-cipher",
                "DEFAULT@SECLEVEL=0"))
        .doesNotContain("CN = a.test")
        .doesNotContain("exit=0");
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> stats.failures(TlsStats.Failure.PROTOCOL) > failedBefore);

    String resp =
        run(
            "curl",
            "-s",
            "--cacert",
            a.cert().toString(),
            "--resolve",
            "a.test:" + vip.getPort() + ":127.0.0.1",
            "https://a.test:" + vip.getPort() + "/headers");
    assertThat(resp).contains("x-forwarded-proto: https").contains("exit=0");
    assertThat(stats.handshakes()).isGreaterThanOrEqualTo(4);
  }
}
