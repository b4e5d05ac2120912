package io.fairway.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.fairway.config.model.BackendTls;
import io.fairway.config.model.RealServer;
import io.fairway.testkit.TestCerts;
import io.fairway.testkit.TestCerts.Kind;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A real server's {@code tls { verify CA sni NAME }}: read, checked at its line, dumped back. */
class BackendTlsConfigTest {
  static final String HTTP = "virtual_server 127.0.0.1 80 {\n    lb_kind HTTP\n";

  @TempDir static Path dir;
  static TestCerts.Pair ca;

  @BeforeAll
  static void certs() throws Exception {
    ca = TestCerts.make(dir, "ca", Kind.EC_PKCS8, "app.internal", "app.internal");
  }

  static String text(String head, String inRealServer) {
    return head + "    real_server 127.0.0.2 443 {\n" + inRealServer + "    }\n}\n";
  }

  static RealServer rs(String head, String inRealServer) {
    return Fixtures.parse(text(head, inRealServer))
        .config()
        .virtualServers()
        .get(0)
        .realServers()
        .get(0);
  }

  static String error(String head, String inRealServer) {
    ConfigException e =
        catchThrowableOfType(ConfigException.class, () -> Fixtures.parse(text(head, inRealServer)));
    assertThat(e).isNotNull();
    return e.getMessage();
  }

  @Test
  void verifyAndSniAreRead() {
    BackendTls t =
        rs(HTTP, "        tls { verify " + ca.cert() + "  sni app.internal }\n")
            .backend()
            .tls()
            .orElseThrow();
    assertThat(t.verify()).isEqualTo(ca.cert().toString());
    assertThat(t.sni()).contains("app.internal");
    assertThat(t.location().line()).isEqualTo(4);
    assertThat(rs(HTTP, "").backend().tls()).isEmpty();
    assertThat(
            rs(
                    "virtual_server 127.0.0.1 80 {\n    lb_kind PROXY\n",
                    "        tls { verify " + ca.cert() + " }\n")
                .backend()
                .tls()
                .map(b -> b.sni().isPresent()))
        .contains(false);
  }

  @Test
  void theDumpReadsBackToTheSameSettings() {
    String text =
        text(
            HTTP,
            "        tls {\n            verify "
                + ca.cert()
                + "\n            sni app.internal\n        }\n");
    RealServer first = Fixtures.parse(text).config().virtualServers().get(0).realServers().get(0);
    String dump = KeepalivedConfig.dump(Fixtures.parse(text).config());
    assertThat(dump).contains("verify " + ca.cert()).contains("sni app.internal");
    assertThat(
            Fixtures.parse(dump)
                .config()
                .virtualServers()
                .get(0)
                .realServers()
                .get(0)
                .backend()
                .tls())
        .isEqualTo(first.backend().tls());
  }

  @Test
  void whatCannotVerifyIsOneErrorAtItsLine() {
    assertThat(error(HTTP, "        tls {\n            sni app.internal\n        }\n"))
        .startsWith("test.conf:4: tls: needs 'verify CA_FILE'");
    assertThat(error(HTTP, "        tls {\n            verify /nonexistent.pem\n        }\n"))
        .startsWith("test.conf:5: verify: /nonexistent.pem: no such file");
    assertThat(error(HTTP, "        tls {\n            verify " + ca.key() + "\n        }\n"))
        .startsWith("test.conf:5: verify: " + ca.key() + ": not a PEM certificate");
  }

  @Test
  void everyAddressOfARealServerDnsBlockGetsItsTlsAndSendProxy() throws Exception {
    String tls = "        tls { verify " + ca.cert() + "  sni app.internal }\n";
    io.fairway.config.model.VirtualServer vs =
        Fixtures.parse(
                HTTP
                    + "    real_server_dns pool.example {\n        type A\n        port 443\n"
                    + tls
                    + "    }\n}\n")
            .config()
            .virtualServers()
            .get(0);
    RealServer rs =
        io.fairway.config.model.DnsMember.of(
            vs.discovery().get(0),
            java.net.InetAddress.getByName("127.0.0.5"),
            443,
            "127.0.0.5:443",
            0);
    assertThat(rs.backend().tls())
        .isEqualTo(vs.discovery().get(0).template().backend().tls())
        .isPresent();
    io.fairway.config.model.VirtualServer proxied =
        Fixtures.parse(
                HTTP
                    + "    real_server_dns pool.example {\n        type A\n        port 443\n"
                    + "        send_proxy v2\n    }\n}\n")
            .config()
            .virtualServers()
            .get(0);
    assertThat(
            io.fairway.config.model.DnsMember.of(
                    proxied.discovery().get(0),
                    java.net.InetAddress.getByName("127.0.0.5"),
                    443,
                    "127.0.0.5:443",
                    0)
                .backend()
                .proxyProtocol()
                .send())
        .isEqualTo(io.fairway.config.model.ProxyProtocol.Version.V2);
  }

  @Test
  void onlyTheUserspacePlaneReEncryptsAndSendProxyGoesWithItOnBoth() {
    String tls = "        tls { verify " + ca.cert() + " }\n";
    assertThat(error("virtual_server 127.0.0.1 80 {\n    lb_kind NAT\n", tls))
        .startsWith("test.conf:4: tls needs lb_kind HTTP or PROXY");
    for (String head : List.of(HTTP, "virtual_server 127.0.0.1 80 {\n    lb_kind PROXY\n")) {
      RealServer both = rs(head, tls + "        send_proxy v2\n");
      assertThat(both.backend().tls()).isPresent();
      assertThat(both.backend().proxyProtocol().send())
          .isEqualTo(io.fairway.config.model.ProxyProtocol.Version.V2);
    }
  }
}
