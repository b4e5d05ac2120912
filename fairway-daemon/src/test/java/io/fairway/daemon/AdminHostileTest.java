package io.fairway.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fairway.check.checker.CheckResult;
import io.fairway.check.checker.Checker;
import io.fairway.check.config.CheckSpecs;
import io.fairway.check.engine.CheckEngine;
import io.fairway.check.engine.ManualClock;
import io.fairway.daemon.admin.AdminApi;
import io.fairway.daemon.admin.AdminHttpServer;
import io.fairway.daemon.admin.AdminToken;
import io.fairway.daemon.admin.DaemonMetrics;
import io.fairway.daemon.admin.ServicesView;
import io.fairway.testkit.RecordingTable;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The hostile trial of issue #31 against the admin listener, each through a real socket on loopback
 * with the bytes an attacker would send: a rebinding page's {@code Host}, weights that are not
 * integers, a timeout that overflows, bad percent escapes, and names asked before the token.
 */
class AdminHostileTest {
  @TempDir Path dir;
  final RecordingTable table = new RecordingTable();
  Daemon daemon;
  AdminHttpServer server;
  AdminApi api;
  String token;

  static final String RS = "/api/v1/services/10.16.0.1%3A80/servers/10.16.1.1%3A80";

  @BeforeEach
  void start() throws Exception {
    Path file = dir.resolve("keepalived.conf");
    Files.writeString(file, AdminApiTest.CONF);
    daemon =
        new Daemon(
            file,
            new KeepalivedLoader(false, CheckSpecs::from),
            table,
            () ->
                CheckEngine.builder()
                    .scheduler(new ManualClock())
                    .checkerFactory((vs, rs, spec) -> up()),
            Duration.ZERO,
            Clock.systemUTC());
    daemon.start();
    AdminToken t = AdminToken.generate(dir.resolve("run/admin.token"));
    token = AdminToken.readToken(t.file());
    DaemonMetrics metrics = new DaemonMetrics(() -> ServicesView.of(daemon), daemon.events());
    api = new AdminApi(daemon, () -> {}, metrics::scrape);
    server =
        AdminHttpServer.start(
            new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
            () -> t,
            false,
            Duration.ofSeconds(5),
            api,
            daemon.events());
  }

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
    if (api != null) {
      api.close();
    }
    if (daemon != null) {
      daemon.stop();
    }
  }

  static Checker up() {
    return new Checker() {
      @Override
      public void check(Consumer<CheckResult> done) {
        done.accept(CheckResult.ok("connected"));
      }

      @Override
      public Duration deadline() {
        return Duration.ofSeconds(1);
      }
    };
  }

  /** One answer: the status and the body, read until the server closes. */
  record Answer(int status, String head, String body) {
    JsonNode json() throws Exception {
      return Json.mapper().readTree(body);
    }
  }

  /**
   * Sends one request as given, with {@code Connection: close}, and reads the whole answer; a
   * connection closed without an answer fails the test.
   */
  static Answer raw(
      InetSocketAddress to,
      String method,
      String target,
      @Nullable String host,
      String extra,
      @Nullable String body)
      throws Exception {
    try (Socket s = new Socket()) {
      s.connect(to, 2000);
      s.setSoTimeout(10_000);
      byte[] b = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
      String head =
          method
              + " "
              + target
              + " HTTP/1.1\r\n"
              + (host == null ? "" : "Host: " + host + "\r\n")
              + extra
              + "Content-Length: "
              + b.length
              + "\r\nConnection: close\r\n\r\n";
      s.getOutputStream().write(head.getBytes(StandardCharsets.ISO_8859_1));
      s.getOutputStream().write(b);
      s.getOutputStream().flush();
      ByteArrayOutputStream all = new ByteArrayOutputStream();
      InputStream in = s.getInputStream();
      in.transferTo(all);
      String text = all.toString(StandardCharsets.UTF_8);
      assertThat(text).as("an answer to %s %s", method, target).startsWith("HTTP/1.1 ");
      int end = text.indexOf("\r\n\r\n");
      return new Answer(
          Integer.parseInt(text.substring(9, 12)), text.substring(0, end), text.substring(end + 4));
    }
  }

  Answer get(String target, @Nullable String host) throws Exception {
    return raw(server.address(), "GET", target, host, "", null);
  }

  Answer post(String target, String body, @Nullable String bearer) throws Exception {
    String host = "127.0.0.1:" + server.address().getPort();
    return raw(
        server.address(),
        "POST",
        target,
        host,
        bearer == null ? "" : "Authorization: Bearer " + bearer + "\r\n",
        body);
  }

  static void oneLineError(Answer a, int status, String contains) throws Exception {
    assertThat(a.status()).as(a.body()).isEqualTo(status);
    assertThat(a.head()).containsIgnoringCase("content-type: application/json");
    assertThat(a.body().strip()).doesNotContain("\n");
    assertThat(a.json().get("status").asInt()).isEqualTo(status);
    assertThat(a.json().get("error").asText()).contains(contains);
  }

  @Test
  void aRebindingPagesHostIsRefusedOnEveryRead() throws Exception {
    for (String path : List.of("/", "/status", "/api/v1/services", "/api/v1/events", "/metrics")) {
      oneLineError(get(path, "evil.example"), 421, "not this admin listener");
      oneLineError(get(path, "evil.example:" + server.address().getPort()), 421, "--admin-host");
    }
    oneLineError(get("/api/v1/services", null), 400, "Host header");
    int port = server.address().getPort();
    for (String ok : List.of("127.0.0.1:" + port, "localhost:" + port, "LOCALHOST", "127.0.0.1")) {
      Answer a = get("/api/v1/services", ok);
      assertThat(a.status()).as(ok).isEqualTo(200);
      assertThat(a.body()).contains("10.16.1.1:80");
    }
    // Another loopback address is not this listener's.
    oneLineError(get("/api/v1/services", "127.0.0.2:" + port), 421, "not this admin listener");
  }

  @Test
  void aNameGivenWithAdminHostIsAnsweredAndOnlyThat() throws Exception {
    server.close();
    AdminToken t = AdminToken.read(dir.resolve("run/admin.token"));
    server =
        AdminHttpServer.start(
            new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
            () -> t,
            false,
            Duration.ofSeconds(5),
            api,
            daemon.events(),
            new io.fairway.daemon.admin.AdminSessions(),
            io.fairway.daemon.admin.AdminHosts.of(List.of("lb1.example.net")));
    assertThat(get("/healthz", "LB1.example.net:9107").status()).isEqualTo(200);
    assertThat(get("/healthz", "lb1.example.net.").status()).isEqualTo(200);
    oneLineError(get("/healthz", "lb2.example.net"), 421, "not this admin listener");
  }

  @Test
  void aWeightThatIsNotAnIntegerIsRefusedAndChangesNothing() throws Exception {
    List<String> before = table.lines();
    for (String w : List.of("0.0001", "1.5", "\"5\"", "true", "1e3", "1.0", "-1", "null", "[]")) {
      Answer a = post(RS + "/weight", "{\"weight\":" + w + "}", token);
      oneLineError(a, 400, "weight");
    }
    // A key given twice: one reader would keep 1, another 0; neither is taken.
    oneLineError(post(RS + "/weight", "{\"weight\":1,\"weight\":0}", token), 400, "weight");
    oneLineError(post(RS + "/weight", "{\"weight\":5000000000}", token), 400, "bad JSON body");
    assertThat(table.lines()).isEqualTo(before);
    assertThat(daemon.admin().settings()).isEmpty();
    Answer ok = post(RS + "/weight", "{\"weight\":3}", token);
    assertThat(ok.status()).as(ok.body()).isEqualTo(200);
    assertThat(ok.json().at("/admin/weight").asInt()).isEqualTo(3);
  }

  @Test
  void aTimeoutThatWouldOverflowIsA400NamingTheField() throws Exception {
    for (String t : List.of("99999999999999999h", "9999999999999999999m", "1e400s", "25h", "-1s")) {
      Answer a =
          post(
              RS + "/state",
              "{\"state\":\"drain\",\"wait\":true,\"timeout\":\"" + t + "\"}",
              token);
      oneLineError(a, 400, "timeout");
      assertThat(a.body()).doesNotContain("overflow");
    }
    assertThat(daemon.admin().settings()).isEmpty();
  }

  @Test
  void aBadPercentEscapeIsA400() throws Exception {
    String host = "127.0.0.1:" + server.address().getPort();
    for (String target :
        List.of("/%zz", "/api/v1/services/%zz", "/api/v1/services/%", "/api/v1/services?x=%g1")) {
      oneLineError(get(target, host), 400, "bad request target");
    }
  }

  @Test
  void aMutationWithoutTheTokenIs401BeforeAnyNameIsLooked() throws Exception {
    for (String target :
        List.of(
            "/api/v1/services/nope/servers/x/state",
            RS.replace("10.16.1.1", "10.16.1.9") + "/state",
            "/api/v1/services/10.16.0.1%3A80/servers/nope/weight")) {
      Answer a = post(target, "{\"state\":\"drain\"}", null);
      oneLineError(a, 401, "Authorization: Bearer");
      assertThat(a.body()).doesNotContain("choices").doesNotContain("10.16.1.");
    }
    Answer wrong = post("/api/v1/services/nope/servers/x/weight", "{\"weight\":1}", "wrong");
    oneLineError(wrong, 401, "Authorization: Bearer");
  }

  @Test
  void theStatusPageMayNotBeFramedAndRunsOnlyItsOwnScript() throws Exception {
    Answer page = get("/", "127.0.0.1:" + server.address().getPort());
    assertThat(page.status()).isEqualTo(200);
    assertThat(page.head())
        .containsIgnoringCase("x-frame-options: DENY")
        .containsIgnoringCase("content-security-policy:")
        .contains("frame-ancestors 'none'")
        .contains("script-src 'self'");
    assertThat(page.body()).doesNotContain("<script>").doesNotContain("style=");
  }
}
