package io.fairway.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fairway.testkit.FairwayProcess;
import io.fairway.testkit.HttpBackend;
import io.fairway.testkit.TestCerts;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Certificate renewal on {@code fairway run --userspace}: new files at the same paths and a SIGHUP;
 * new connections then get the new certificate, while a keep-alive connection opened before the
 * reload keeps its session and its requests are still answered.
 */
class TlsRenewalRunTest {
  @TempDir Path dir;

  // Started by each test that needs it, before any use; closed after each when started.
  @SuppressWarnings("NullAway.Init")
  HttpBackend backend;

  @SuppressWarnings("NullAway.Init")
  FairwayProcess fairway;

  @AfterEach
  void cleanUp() throws Exception {
    if (fairway != null) {
      fairway.close();
    }
    if (backend != null) {
      backend.close();
    }
  }

  int backend() throws IOException {
    backend = new HttpBackend("b1");
    return backend.port();
  }

  static String conf(int vip, TestCerts.Pair cert, int backend) {
    return "virtual_server 127.0.0.1 "
        + vip
        + " {\n    delay_loop 1\n    lb_algo rr\n    lb_kind HTTP\n    protocol TCP\n"
        // Keep-alive clients may idle through a slow reload without being closed for it.
        + "    proxy_timeouts {\n        keepalive 120\n    }\n"
        + "    tls {\n        certificate "
        + cert.cert()
        + " "
        + cert.key()
        + "\n    }\n    real_server 127.0.0.1 "
        + backend
        + " {\n        weight 1\n        TCP_CHECK {\n            connect_timeout 1\n"
        + "        }\n    }\n}\n";
  }

  /**
   * A TLS connection to {@code port} asking for r.test. A new client context each time, with an
   * empty session cache: the handshake is a full one, so the certificate it reports is the one
   * served now, not one remembered from a resumed session.
   */
  static SSLSocket open(int port) throws Exception {
    SSLContext c = SSLContext.getInstance("TLS");
    c.init(null, new TrustManager[] {new TrustingAnyCertificate()}, null);
    SSLSocket s = (SSLSocket) c.getSocketFactory().createSocket();
    s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 3000);
    s.setSoTimeout(10_000);
    SSLParameters p = s.getSSLParameters();
    p.setServerNames(List.of(new SNIHostName("r.test")));
    s.setSSLParameters(p);
    s.startHandshake();
    return s;
  }

  static X509Certificate served(SSLSocket s) throws Exception {
    return (X509Certificate) s.getSession().getPeerCertificates()[0];
  }

  /** One keep-alive request on {@code s}: the response's status code and body. */
  static String request(SSLSocket s) throws IOException {
    s.getOutputStream()
        .write("GET / HTTP/1.1\r\nHost: r.test\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
    s.getOutputStream().flush();
    InputStream in = s.getInputStream();
    String head = readHead(in);
    int length = 0;
    for (String line : head.split("\r\n")) {
      if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
        length = Integer.parseInt(line.substring("content-length:".length()).trim());
      }
    }
    byte[] body = in.readNBytes(length);
    return head.split(" ", 3)[1] + " " + new String(body, StandardCharsets.UTF_8);
  }

  private static String readHead(InputStream in) throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    // Bounded: a head larger than this is not what the backend sends.
    for (int i = 0; i < 16_384; i++) {
      int b = in.read();
      if (b < 0) {
        throw new IOException("closed after " + head);
      }
      head.write(b);
      String h = head.toString(StandardCharsets.ISO_8859_1);
      if (h.endsWith("\r\n\r\n")) {
        return h;
      }
    }
    throw new IOException("no end of head in " + head);
  }

  /** A request on a fresh connection, or what went wrong (while the daemon starts). */
  static String fresh(int port) {
    try (SSLSocket s = open(port)) {
      return request(s);
    } catch (Exception e) {
      return e.toString();
    }
  }

  @Test
  void aRenewedCertificateServesNewConnectionsWhileAKeptOneGoesOn() throws Exception {
    TestCerts.Pair cert =
        TestCerts.make(dir, "r", TestCerts.Kind.RSA_PKCS8, "first.test", "r.test");
    int vip = io.fairway.testkit.FreePorts.loopback();
    int admin = io.fairway.testkit.FreePorts.loopback();
    Path conf = dir.resolve("keepalived.conf");
    Files.writeString(conf, conf(vip, cert, backend()));
    fairway =
        FairwayProcess.fromTestClasspath()
            .log(dir.resolve("fairway.log"))
            .start("run", "--userspace", "-f", conf.toString(), "--admin", "127.0.0.1:" + admin);
    await().atMost(Duration.ofSeconds(60)).until(() -> fresh(vip).equals("200 b1"));

    try (SSLSocket kept = open(vip)) {
      X509Certificate first = served(kept);
      assertThat(first.getSubjectX500Principal().getName()).isEqualTo("CN=first.test");
      assertThat(request(kept)).isEqualTo("200 b1");

      // The renewed pair at the same paths: a new key, serial and subject.
      TestCerts.make(dir, "r", TestCerts.Kind.EC_PKCS8, "renewed.test", "r.test");
      fairway.signal("HUP");
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () -> {
                try (SSLSocket s = open(vip)) {
                  return served(s).getSubjectX500Principal().getName().equals("CN=renewed.test");
                }
              });
      X509Certificate renewed;
      try (SSLSocket s = open(vip)) {
        renewed = served(s);
        assertThat(request(s)).isEqualTo("200 b1");
      }
      assertThat(renewed.getSerialNumber()).isNotEqualTo(first.getSerialNumber());
      assertThat(renewed.getPublicKey().getAlgorithm()).isEqualTo("EC");

      // The connection from before the reload, on the session it began with: still answered.
      for (int i = 0; i < 3; i++) {
        assertThat(request(kept)).as("request %d on the kept connection", i).isEqualTo("200 b1");
      }
    }
    assertThat(fairway.log()).doesNotContain("reload refused").doesNotContain("\tat ");
    assertThat(fairway.stop(Duration.ofSeconds(30))).as(fairway.log()).isZero();
  }

  /** The test's client trusts whatever the listener serves: what it checks is which one that is. */
  private static final class TrustingAnyCertificate implements X509TrustManager {
    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return new X509Certificate[0];
    }
  }
}
