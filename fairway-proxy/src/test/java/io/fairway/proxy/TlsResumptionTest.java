package io.fairway.proxy;

import static io.fairway.proxy.Fixtures.anyPort;
import static io.fairway.proxy.Fixtures.dest;
import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.config.model.ProxySettings;
import io.fairway.proxy.plane.ProxyTable;
import io.fairway.proxy.table.ListenerSpec;
import io.fairway.proxy.table.RequestKey;
import io.fairway.proxy.tls.ServerTls;
import io.fairway.table.Service;
import io.fairway.table.ServiceKey;
import io.fairway.testkit.ExternalPrograms;
import io.fairway.testkit.HttpBackend;
import io.fairway.testkit.TestCerts;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * TLS session resumption on an HTTP listener, with BoringSSL and with the JDK's provider: openssl
 * s_client saves the session of a first connection and offers it on a second, which the listener
 * resumes (s_client says {@code Reused}) — by a TLS 1.3 ticket, a TLS 1.2 ticket, and a TLS 1.2
 * session id (the client refusing tickets, so only the server's session cache can resume it); and
 * with BoringSSL a ticket outlives the contexts that issued it (a reload).
 */
class TlsResumptionTest {
  @AutoClose final Cleanup cleanup = new Cleanup();
  @TempDir static Path dir;
  static TestCerts.Pair a;

  @BeforeAll
  static void certs() throws Exception {
    a = TestCerts.make(dir, "a", TestCerts.Kind.EC_PKCS8, "a.test", "a.test");
  }

  @AfterEach
  void provider() {
    System.clearProperty(ServerTls.FORCE_JDK);
  }

  private InetSocketAddress listener() throws Exception {
    HttpBackend backend = cleanup.track(new HttpBackend("b1"));
    ListenerSpec spec =
        ListenerSpec.http(RequestKey.CLIENT)
            .withProxy(ProxySettings.DEFAULTS.withTls(TlsTerminationTest.settings(a)));
    ProxyTable t =
        cleanup.track(new ProxyTable(ProxyOptions.builder().ioThreads(1).build(), k -> spec));
    ServiceKey k = anyPort();
    t.addService(Service.of(k, "rr"));
    t.addDest(k, dest(backend.address(), 1));
    return t.boundAddress(k);
  }

  /**
   * One request through s_client. It reads stdin to its end and then waits for the server's close
   * ({@code -ign_eof}), so a TLS 1.3 ticket, which comes after the handshake, is read and saved.
   */
  static String sClient(InetSocketAddress vip, List<String> options) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("openssl", "s_client", "-ign_eof"));
    cmd.addAll(List.of("-connect", "127.0.0.1:" + vip.getPort(), "-servername", "a.test"));
    cmd.addAll(options);
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    try (OutputStream in = p.getOutputStream()) {
      in.write(
          "GET / HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n"
              .getBytes(StandardCharsets.US_ASCII));
    }
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).as(out).isTrue();
    return out + "\nexit=" + p.exitValue();
  }

  @ParameterizedTest(name = "jdk provider forced: {0}, {1}, {2}")
  @CsvSource({
    "false, -tls1_3, ''",
    "false, -tls1_2, ''",
    "false, -tls1_2, -no_ticket",
    "true, -tls1_3, ''",
    "true, -tls1_2, ''",
    "true, -tls1_2, -no_ticket"
  })
  void aSecondHandshakeResumesTheFirstSession(boolean jdk, String version, String tickets)
      throws Exception {
    ExternalPrograms.require("openssl", "/usr/bin/openssl");
    if (jdk) {
      System.setProperty(ServerTls.FORCE_JDK, "true");
    }
    InetSocketAddress vip = listener();
    String protocol = version.equals("-tls1_3") ? "TLSv1.3" : "TLSv1.2";
    Path session = Files.createTempFile(dir, "session", ".pem");
    List<String> options = new ArrayList<>(List.of(version));
    if (!tickets.isEmpty()) {
      options.add(tickets);
    }

    List<String> first = new ArrayList<>(options);
    first.addAll(List.of("-sess_out", session.toString()));
    String issued = sClient(vip, first);
    assertThat(issued).contains("New, " + protocol).contains("HTTP/1.1 200").contains("exit=0");
    if (tickets.isEmpty()) {
      assertThat(issued).as("a ticket was issued").contains("TLS session ticket lifetime hint");
    } else {
      assertThat(issued).as("no ticket: a session id").doesNotContain("TLS session ticket:");
    }
    assertThat(Files.size(session)).as("s_client saved a session").isPositive();

    List<String> second = new ArrayList<>(options);
    second.addAll(List.of("-sess_in", session.toString()));
    assertThat(sClient(vip, second))
        .as("the second handshake resumed the first session")
        .contains("Reused, " + protocol)
        .contains("HTTP/1.1 200")
        .contains("exit=0");
  }

  /**
   * BoringSSL: a ticket still resumes on contexts built after the ones that issued it, as a reload
   * builds them (here a second table's, in the same process): the ticket keys are the process's,
   * not a context's.
   */
  @Test
  void aTicketResumesOnContextsBuiltAfterTheOnesThatIssuedIt() throws Exception {
    ExternalPrograms.require("openssl", "/usr/bin/openssl");
    assertThat(ServerTls.provider()).isEqualTo(io.netty.handler.ssl.SslProvider.OPENSSL);
    InetSocketAddress before = listener();
    Path session = Files.createTempFile(dir, "session", ".pem");
    assertThat(sClient(before, List.of("-tls1_3", "-sess_out", session.toString())))
        .contains("New, TLSv1.3")
        .contains("exit=0");
    InetSocketAddress after = listener();
    assertThat(sClient(after, List.of("-tls1_3", "-sess_in", session.toString())))
        .contains("Reused, TLSv1.3")
        .contains("HTTP/1.1 200")
        .contains("exit=0");
  }
}
