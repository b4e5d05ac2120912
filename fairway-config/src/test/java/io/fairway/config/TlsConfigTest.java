package io.fairway.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.fairway.config.model.TlsSettings;
import io.fairway.config.model.VirtualServer;
import io.fairway.testkit.TestCerts;
import io.fairway.testkit.TestCerts.Kind;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The {@code tls { }} block: files checked at their line, protocols, dump and read back. */
class TlsConfigTest {
  static final String HEAD = "virtual_server 127.0.0.1 443 {\n    lb_kind HTTP\n";
  static final String RS = "    real_server 127.0.0.2 80 {\n    }\n}\n";

  @TempDir static Path dir;
  static TestCerts.Pair a;
  static TestCerts.Pair b;

  @BeforeAll
  static void certs() throws Exception {
    a = TestCerts.make(dir, "a", Kind.RSA_PKCS8, "a.test", "a.test");
    b = TestCerts.make(dir, "b", Kind.EC_SEC1, "b.test", "*.b.test");
  }

  static String cert(TestCerts.Pair p) {
    return "        certificate " + p.cert() + " " + p.key() + "\n";
  }

  static VirtualServer vs(String block) {
    return Fixtures.parse(HEAD + "    tls {\n" + block + "    }\n" + RS)
        .config()
        .virtualServers()
        .get(0);
  }

  static String error(String head, String block) {
    ConfigException e =
        catchThrowableOfType(
            ConfigException.class,
            () -> Fixtures.parse(head + "    tls {\n" + block + "    }\n" + RS));
    assertThat(e).isNotNull();
    return e.getMessage();
  }

  @Test
  void certificatesInFileOrderWithTheDefaults() {
    TlsSettings t = vs(cert(a) + cert(b)).proxy().tls();
    assertThat(t.enabled()).isTrue();
    assertThat(t.certificates())
        .extracting(TlsSettings.Certificate::chain)
        .containsExactly(a.cert().toString(), b.cert().toString());
    assertThat(t.protocols()).containsExactly("TLSv1.2", "TLSv1.3");
    assertThat(t.alpn()).isEmpty();
    assertThat(Fixtures.parse(HEAD + RS).config().virtualServers().get(0).proxy().tls())
        .isEqualTo(TlsSettings.NONE);
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void everyKeyFormOpensslWritesIsRead(Kind kind) throws Exception {
    Path d = Files.createTempDirectory(dir, kind.name());
    TestCerts.Pair p = TestCerts.make(d, "k", kind, "k.test", "k.test");
    assertThat(vs(cert(p)).proxy().tls().certificates()).hasSize(1);
  }

  @Test
  void theDumpReadsBackToTheSameSettings() throws Exception {
    Path keys = dir.resolve("tickets");
    Files.write(keys, new byte[96]);
    String text =
        HEAD
            + "    tls {\n"
            + cert(a)
            + cert(b)
            + "        protocols TLSv1.3\n        alpn http/1.1\n        ticket_keys "
            + keys
            + "\n        handshake_timeout 2.5\n    }\n"
            + RS;
    TlsSettings first = Fixtures.parse(text).config().virtualServers().get(0).proxy().tls();
    String dump = KeepalivedConfig.dump(Fixtures.parse(text).config());
    assertThat(dump)
        .contains("tls {")
        .contains("protocols TLSv1.3")
        .contains("ticket_keys")
        .contains("handshake_timeout 2.5");
    assertThat(first.handshakeTimeout()).contains(java.time.Duration.ofMillis(2500));
    assertThat(Fixtures.parse(dump).config().virtualServers().get(0).proxy().tls())
        .isEqualTo(first);
  }

  @Test
  void aRenewedCertificateAtTheSamePathIsAChangedSetting() throws Exception {
    Path d = Files.createTempDirectory(dir, "renew");
    TestCerts.Pair p = TestCerts.make(d, "r", Kind.RSA_PKCS8, "r.test", "r.test");
    TlsSettings before = vs(cert(p)).proxy().tls();
    TestCerts.make(d, "r", Kind.EC_PKCS8, "r.test", "r.test");
    assertThat(vs(cert(p)).proxy().tls()).isNotEqualTo(before);
  }

  @Test
  void theHandshakeTimeoutIsOptionalAndMoreThanZero() {
    assertThat(vs(cert(a)).proxy().tls().handshakeTimeout()).isEmpty();
    assertThat(error(HEAD, cert(a) + "        handshake_timeout 0\n"))
        .startsWith("test.conf:5: handshake_timeout: must be more than 0 seconds");
    assertThat(error(HEAD, cert(a) + "        handshake_timeout soon\n"))
        .startsWith("test.conf:5: handshake_timeout: 'soon' is not a time in seconds");
  }

  @Test
  void oldProtocolsAreRefusedAtTheirLine() {
    assertThat(error(HEAD, cert(a) + "        protocols TLSv1.1 TLSv1.2\n"))
        .startsWith("test.conf:5: protocols: TLSv1.1 is refused; TLSv1.2 is the oldest offered");
  }

  @Test
  void filesThatCannotServeAreOneErrorAtTheirLine() {
    assertThat(error(HEAD, "        certificate /nonexistent.crt " + a.key() + "\n"))
        .startsWith("test.conf:4: certificate: /nonexistent.crt: no such file");
    assertThat(error(HEAD, "        certificate " + a.cert() + " " + b.key() + "\n"))
        .startsWith("test.conf:4: certificate: " + b.key() + ": this key is not the key of");
    assertThat(error(HEAD, "        certificate " + a.key() + " " + a.key() + "\n"))
        .startsWith("test.conf:4: certificate: " + a.key() + ": not a PEM certificate");
    assertThat(error(HEAD, "")).startsWith("test.conf:3: tls: needs at least one");
  }

  @Test
  void theKernelCannotTerminateTls() {
    assertThat(error("virtual_server 127.0.0.1 443 {\n    lb_kind NAT\n", cert(a)))
        .startsWith("test.conf:3: tls needs lb_kind HTTP or PROXY");
  }

  static String plainError(String text) {
    ConfigException e = catchThrowableOfType(ConfigException.class, () -> Fixtures.parse(text));
    assertThat(e).isNotNull();
    return e.getMessage();
  }

  @Test
  void alpnOutsideATlsBlockIsH2cOnThePlainListenerAndDumpedBack() {
    String text = "virtual_server 127.0.0.1 80 {\n    lb_kind HTTP\n    alpn h2 http/1.1\n" + RS;
    TlsSettings t = Fixtures.parse(text).config().virtualServers().get(0).proxy().tls();
    assertThat(t.enabled()).isFalse();
    assertThat(t.alpn()).containsExactly("h2", "http/1.1");
    String dump = KeepalivedConfig.dump(Fixtures.parse(text).config());
    assertThat(dump).contains("alpn h2 http/1.1").doesNotContain("tls {");
    assertThat(Fixtures.parse(dump).config().virtualServers().get(0).proxy().tls()).isEqualTo(t);
  }

  @Test
  void alpnOutsideATlsBlockIsRefusedWhereItCannotMeanH2c() {
    assertThat(plainError(HEAD + "    alpn h2\n    tls {\n" + cert(a) + "    }\n" + RS))
        .startsWith("test.conf:3: alpn: this virtual_server has a tls block (line 4)");
    assertThat(plainError("virtual_server 127.0.0.1 80 {\n    lb_kind NAT\n    alpn h2\n" + RS))
        .startsWith("test.conf:3: alpn outside a tls block (h2c) needs lb_kind HTTP");
    assertThat(plainError("virtual_server 127.0.0.1 80 {\n    lb_kind HTTP\n    alpn h3\n" + RS))
        .startsWith("test.conf:3: alpn: unknown 'h3'");
  }
}
