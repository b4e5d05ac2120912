package io.fairway.proxy;

import static io.fairway.proxy.Fixtures.anyPort;
import static io.fairway.proxy.Fixtures.dest;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fairway.proxy.accesslog.AccessLog;
import io.fairway.proxy.accesslog.AccessLogFormat;
import io.fairway.proxy.accesslog.AccessLogWriter;
import io.fairway.proxy.plane.ProxyTable;
import io.fairway.proxy.table.ListenerSpec;
import io.fairway.proxy.table.RequestKey;
import io.fairway.table.Service;
import io.fairway.table.ServiceKey;
import io.fairway.testkit.EchoServer;
import io.fairway.testkit.ExternalPrograms;
import io.fairway.testkit.HttpBackend;
import io.fairway.testkit.TestCerts;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The access log of an HTTP service, written by the proxy table and read by goaccess and Jackson.
 */
class AccessLogTest {
  @AutoClose final Cleanup cleanup = new Cleanup();
  @TempDir Path dir;

  private final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(2))
          .build();

  private HttpResponse<String> get(InetSocketAddress vip, String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + vip.getPort() + path))
            // Generous: the machines that run this are shared and often loaded.
            .timeout(Duration.ofSeconds(20))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void oneLinePerRequestInBothFormatsAndGoaccessReadsTheCombinedOne() throws Exception {
    HttpBackend b1 = cleanup.track(new HttpBackend("b1"));
    ProxyTable t =
        cleanup.track(
            new ProxyTable(
                ProxyOptions.defaults().toBuilder().ioThreads(2).build(),
                k -> ListenerSpec.http(RequestKey.CLIENT)));
    ServiceKey k = anyPort();
    t.addService(Service.of(k, "rr"));
    InetSocketAddress vip = t.boundAddress(k);
    AccessLogWriter combined =
        new AccessLogWriter(dir.resolve("access.log"), AccessLogFormat.COMBINED, 1024);
    AccessLogWriter json =
        new AccessLogWriter(dir.resolve("access.json"), AccessLogFormat.JSON, 1024);
    t.setAccessLog(k, AccessLog.of(List.of(combined, json)));

    assertThat(get(vip, "/none").statusCode()).isEqualTo(503); // no server yet
    t.addDest(k, dest(b1.address(), 1));
    for (int i = 0; i < 5; i++) {
      assertThat(get(vip, "/big?kb=" + (i + 1)).statusCode()).isEqualTo(200);
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> json.written() == 6);
    combined.close();
    json.close();

    List<JsonNode> lines = new ArrayList<>();
    ObjectMapper m = new ObjectMapper();
    for (String l : Files.readAllLines(dir.resolve("access.json"))) {
      lines.add(m.readTree(l));
    }
    assertThat(lines).hasSize(6);
    JsonNode first = lines.get(0);
    assertThat(first.get("status").asInt()).isEqualTo(503);
    assertThat(first.get("termination").asText()).isEqualTo("no_server");
    assertThat(first.get("real_server").isNull()).isTrue();
    assertThat(first.get("tls_version").isNull()).isTrue();
    JsonNode last = lines.get(5);
    assertThat(last.get("status").asInt()).isEqualTo(200);
    assertThat(last.get("termination").asText()).isEqualTo("ok");
    assertThat(last.get("target").asText()).isEqualTo("/big?kb=5");
    assertThat(last.get("backend_protocol").asText()).isEqualTo("HTTP/1.1");
    assertThat(first.get("backend_protocol").isNull()).isTrue();
    assertThat(last.get("client").asText()).isEqualTo("127.0.0.1");
    assertThat(last.get("real_server").asText()).contains(String.valueOf(b1.address().getPort()));
    assertThat(last.get("bytes_out").asLong()).isGreaterThan(5 * 1024);
    assertThat(last.get("total_us").asLong())
        .isGreaterThanOrEqualTo(last.get("first_byte_us").asLong());

    List<String> clf = Files.readAllLines(dir.resolve("access.log"));
    assertThat(clf).hasSize(6);
    assertThat(clf.get(5)).contains("\"GET /big?kb=5 HTTP/1.1\" 200 ");
    JsonNode report = goaccess(dir.resolve("access.log"));
    assertThat(report.at("/general/total_requests").asInt()).isEqualTo(6);
    assertThat(report.at("/general/valid_requests").asInt()).isEqualTo(6);
    assertThat(report.at("/general/failed_requests").asInt()).isZero();
  }

  /** Reads from {@code in} until {@code n} bytes came; Awaitility bounds the caller. */
  private static String read(java.io.InputStream in, int n) throws IOException {
    byte[] b = in.readNBytes(n);
    return new String(b, java.nio.charset.StandardCharsets.US_ASCII);
  }

  @Test
  void anL4ConnectionIsOneRecordOnceBothSidesClosed() throws Exception {
    EchoServer echo = cleanup.track(new EchoServer("e1"));
    java.util.concurrent.atomic.AtomicReference<ListenerSpec> spec =
        new java.util.concurrent.atomic.AtomicReference<>(ListenerSpec.tcp());
    ProxyTable t =
        cleanup.track(
            new ProxyTable(
                ProxyOptions.defaults().toBuilder().ioThreads(1).build(), k -> spec.get()));
    AccessLogWriter json = new AccessLogWriter(dir.resolve("l4.json"), AccessLogFormat.JSON, 1024);
    ServiceKey plain = anyPort();
    t.addService(Service.of(plain, "rr"));
    t.setAccessLog(plain, AccessLog.of(List.of(json)));
    InetSocketAddress vip = t.boundAddress(plain);

    // No server: closed at once.
    try (java.net.Socket s = new java.net.Socket()) {
      s.connect(vip, 2000);
      s.setSoTimeout(20_000);
      assertThat(s.getInputStream().read()).isEqualTo(-1);
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> json.written() == 1);

    // Relayed, then closed by the client: 6 bytes in, the greeting and the echo out.
    t.addDest(plain, dest(echo.address(), 1));
    try (java.net.Socket s = new java.net.Socket()) {
      s.connect(vip, 2000);
      s.setSoTimeout(20_000);
      assertThat(read(s.getInputStream(), 3)).isEqualTo("e1\n");
      s.getOutputStream().write("hello\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
      assertThat(read(s.getInputStream(), 6)).isEqualTo("hello\n");
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> json.written() == 2);

    // Silent for the idle timeout: closed by it.
    spec.set(
        ListenerSpec.tcp()
            .withTimeouts(
                new io.fairway.config.model.ProxySettings.Timeouts(
                    java.util.Optional.empty(),
                    java.util.Optional.empty(),
                    java.util.OptionalLong.empty(),
                    java.util.Optional.empty(),
                    java.util.Optional.empty(),
                    java.util.Optional.empty(),
                    java.util.Optional.of(Duration.ofMillis(300)),
                    java.util.Optional.empty())));
    // A table of its own: both services are on port 0 of the same address.
    ProxyTable t2 =
        cleanup.track(
            new ProxyTable(
                ProxyOptions.defaults().toBuilder().ioThreads(1).build(), k -> spec.get()));
    ServiceKey idle = anyPort();
    t2.addService(Service.of(idle, "rr"));
    t2.addDest(idle, dest(echo.address(), 1));
    t2.setAccessLog(idle, AccessLog.of(List.of(json)));
    try (java.net.Socket s = new java.net.Socket()) {
      s.connect(t2.boundAddress(idle), 2000);
      s.setSoTimeout(20_000);
      assertThat(read(s.getInputStream(), 3)).isEqualTo("e1\n");
      assertThat(s.getInputStream().read()).isEqualTo(-1);
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> json.written() == 3);
    json.close();

    ObjectMapper m = new ObjectMapper();
    List<JsonNode> lines = new ArrayList<>();
    for (String l : Files.readAllLines(dir.resolve("l4.json"))) {
      lines.add(m.readTree(l));
    }
    assertThat(lines).hasSize(3);
    JsonNode refused = lines.get(0);
    assertThat(refused.get("termination").asText()).isEqualTo("no_server");
    assertThat(refused.get("real_server").isNull()).isTrue();
    assertThat(refused.get("bytes_in").asLong()).isZero();

    JsonNode relayed = lines.get(1);
    assertThat(relayed.get("termination").asText()).isEqualTo("ok");
    assertThat(relayed.get("virtual_server").asText()).isEqualTo(plain.toString());
    assertThat(relayed.get("real_server").asText())
        .contains(String.valueOf(echo.address().getPort()));
    assertThat(relayed.get("client").asText()).isEqualTo("127.0.0.1");
    assertThat(relayed.get("client_port").asInt()).isPositive();
    assertThat(relayed.get("method").isNull()).isTrue();
    assertThat(relayed.get("status").isNull()).isTrue();
    assertThat(relayed.get("bytes_in").asLong()).isEqualTo(6);
    assertThat(relayed.get("bytes_out").asLong()).isEqualTo(9);
    assertThat(relayed.get("retries").asInt()).isZero();
    assertThat(relayed.get("queue_us").asLong()).isNotNegative();
    assertThat(relayed.get("connect_us").asLong()).isNotNegative();
    assertThat(relayed.get("total_us").asLong())
        .isGreaterThanOrEqualTo(relayed.get("connect_us").asLong());

    JsonNode timedOut = lines.get(2);
    assertThat(timedOut.get("termination").asText()).isEqualTo("idle_timeout");
    assertThat(timedOut.get("bytes_out").asLong()).isEqualTo(3);
    assertThat(timedOut.get("total_us").asLong()).isGreaterThanOrEqualTo(300_000);
  }

  /**
   * Over a tls listener, the record has the client's TLS version and the name it asked for, for
   * HTTP (after ALPN chose HTTP/1.1) and for L4 alike.
   */
  @Test
  void tlsListenersLogTheVersionAndTheServerName() throws Exception {
    ExternalPrograms.require("openssl", "/usr/bin/openssl");
    TestCerts.Pair a = TestCerts.make(dir, "a", TestCerts.Kind.EC_PKCS8, "a.test", "a.test");
    HttpBackend b1 = cleanup.track(new HttpBackend("b1"));
    AccessLogWriter json = new AccessLogWriter(dir.resolve("tls.json"), AccessLogFormat.JSON, 1024);
    for (ListenerSpec base : List.of(ListenerSpec.http(RequestKey.CLIENT), ListenerSpec.tcp())) {
      ListenerSpec spec =
          base.withProxy(
              io.fairway.config.model.ProxySettings.DEFAULTS.withTls(
                  TlsTerminationTest.settings(a)));
      ProxyTable t =
          cleanup.track(
              new ProxyTable(ProxyOptions.defaults().toBuilder().ioThreads(1).build(), k -> spec));
      ServiceKey k = anyPort();
      t.addService(Service.of(k, "rr"));
      t.addDest(k, dest(b1.address(), 1));
      t.setAccessLog(k, AccessLog.of(List.of(json)));
      Process p =
          new ProcessBuilder(
                  "openssl",
                  "s_client",
                  "-quiet",
                  "-alpn",
                  "http/1.1",
                  "-servername",
                  "a.test",
                  "-connect",
                  "127.0.0.1:" + t.boundAddress(k).getPort())
              .redirectErrorStream(true)
              .start();
      p.getOutputStream()
          .write(
              "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                  .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
      p.getOutputStream().flush();
      String out =
          new String(
              p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.ISO_8859_1);
      assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
      assertThat(out).contains("HTTP/1.1 200");
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> json.written() == 2);
    json.close();
    ObjectMapper m = new ObjectMapper();
    for (String l : Files.readAllLines(dir.resolve("tls.json"))) {
      JsonNode r = m.readTree(l);
      assertThat(r.get("tls_version").asText()).as(l).startsWith("TLSv1.");
      assertThat(r.get("sni").asText()).as(l).isEqualTo("a.test");
    }
  }

  /** An HTTP/2 request's record says so, with its TLS as an HTTP/1.1 one's over the same port. */
  @Test
  void http2RequestsAreLoggedAsHttp2() throws Exception {
    ExternalPrograms.require("curl", "/usr/bin/curl");
    TestCerts.Pair a = TestCerts.make(dir, "h", TestCerts.Kind.EC_PKCS8, "h.test", "h.test");
    HttpBackend b1 = cleanup.track(new HttpBackend("b1"));
    AccessLogWriter json = new AccessLogWriter(dir.resolve("h2.json"), AccessLogFormat.JSON, 1024);
    ListenerSpec spec =
        ListenerSpec.http(RequestKey.CLIENT)
            .withProxy(
                io.fairway.config.model.ProxySettings.DEFAULTS.withTls(
                    TlsTerminationTest.settings(a))); // ALPN: h2 http/1.1
    ProxyTable t =
        cleanup.track(
            new ProxyTable(ProxyOptions.defaults().toBuilder().ioThreads(1).build(), k -> spec));
    ServiceKey k = anyPort();
    t.addService(Service.of(k, "rr"));
    t.addDest(k, dest(b1.address(), 1));
    t.setAccessLog(k, AccessLog.of(List.of(json)));
    int port = t.boundAddress(k).getPort();
    for (String version : List.of("--http2", "--http1.1")) {
      assertThat(
              TlsTerminationTest.run(
                  "curl",
                  "-sS",
                  "-o",
                  "/dev/null",
                  "-w",
                  "%{http_version} %{http_code}",
                  version,
                  "--cacert",
                  a.cert().toString(),
                  "--resolve",
                  "h.test:" + port + ":127.0.0.1",
                  "https://h.test:" + port + "/"))
          .contains(version.equals("--http2") ? "2 200" : "1.1 200");
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> json.written() == 2);
    json.close();
    ObjectMapper m = new ObjectMapper();
    List<String> lines = Files.readAllLines(dir.resolve("h2.json"));
    JsonNode h2 = m.readTree(lines.get(0));
    assertThat(h2.get("protocol").asText()).isEqualTo("HTTP/2.0");
    assertThat(h2.get("status").asInt()).isEqualTo(200);
    assertThat(h2.get("tls_version").asText()).startsWith("TLSv1.");
    assertThat(h2.get("sni").asText()).isEqualTo("h.test");
    assertThat(m.readTree(lines.get(1)).get("protocol").asText()).isEqualTo("HTTP/1.1");
  }

  private JsonNode goaccess(Path log) throws IOException, InterruptedException {
    Path bin = ExternalPrograms.require("goaccess", "/usr/bin/goaccess");
    Path out = dir.resolve("report.json");
    Process p =
        new ProcessBuilder(
                bin.toString(), log.toString(), "--log-format=COMBINED", "-o", out.toString())
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("goaccess.out").toFile())
            .start();
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).as("goaccess finished").isTrue();
    assertThat(p.exitValue()).as(Files.readString(dir.resolve("goaccess.out"))).isZero();
    return new ObjectMapper().readTree(out.toFile());
  }

  @Test
  void aFileThatCannotBeWrittenCountsItsRecordsAsDropped() throws Exception {
    // A directory where the file should be: every open fails.
    Path notAFile = Files.createDirectory(dir.resolve("a-directory"));
    try (AccessLogWriter w = new AccessLogWriter(notAFile, AccessLogFormat.JSON, 16)) {
      for (int i = 0; i < 3; i++) {
        assertThat(w.offer(AccessRecords.sample(i))).isTrue();
      }
      await().atMost(Duration.ofSeconds(5)).until(() -> w.dropped() == 3);
      assertThat(w.written()).isZero();
    }
  }

  @Test
  void reopenWritesToANewFileAfterTheOldOneWasMoved() throws Exception {
    Path log = dir.resolve("access.log");
    try (AccessLogWriter w = new AccessLogWriter(log, AccessLogFormat.COMBINED, 16)) {
      w.offer(AccessRecords.sample(1));
      await().atMost(Duration.ofSeconds(5)).until(() -> w.written() == 1);
      Files.move(log, dir.resolve("access.log.1")); // what logrotate does
      w.reopen();
      w.offer(AccessRecords.sample(2));
      await().atMost(Duration.ofSeconds(5)).until(() -> w.written() == 2);
    }
    assertThat(Files.readAllLines(dir.resolve("access.log.1"))).hasSize(1);
    assertThat(Files.readAllLines(log)).hasSize(1).allMatch(l -> l.contains("/item/2 "));
  }
}
