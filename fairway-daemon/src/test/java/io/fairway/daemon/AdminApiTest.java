package io.fairway.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.fairway.check.checker.CheckResult;
import io.fairway.check.checker.Checker;
import io.fairway.check.config.CheckSpecs;
import io.fairway.check.engine.CheckEngine;
import io.fairway.check.engine.ManualClock;
import io.fairway.check.spec.CheckSpec;
import io.fairway.check.spec.TcpCheckSpec;
import io.fairway.daemon.admin.AdminApi;
import io.fairway.daemon.admin.AdminHttpServer;
import io.fairway.daemon.admin.AdminToken;
import io.fairway.daemon.admin.DaemonMetrics;
import io.fairway.daemon.admin.ServicesView;
import io.fairway.testkit.RecordingTable;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ProxySelector;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The admin listener over a real daemon (scripted checkers on a manual clock, an in-memory table),
 * through real HTTP on loopback: the error paths, slow request heads, drain / maint / ready /
 * weight reaching the table, the event stream, reload, and {@code /metrics} checked by promtool.
 */
class AdminApiTest {
  @TempDir Path dir;
  final RecordingTable table = new RecordingTable();
  final ManualClock clock = new ManualClock();
  final Map<String, Boolean> up = new ConcurrentHashMap<>();
  final HttpClient http =
      HttpClient.newBuilder()
          .proxy(ProxySelector.of(null))
          .connectTimeout(Duration.ofSeconds(2))
          .build();
  Daemon daemon;
  AdminHttpServer server;
  AdminApi api;
  AdminToken token;
  URI base;

  static final String CONF =
      """
      virtual_server 10.16.0.1 80 {
          delay_loop 5
          lb_algo rr
          lb_kind NAT
          protocol TCP
          quorum 2
          sorry_server 10.16.9.9 80
          real_server 10.16.1.1 80 {
              weight 1
              TCP_CHECK {
                  connect_timeout 1
              }
          }
          real_server 10.16.1.2 80 {
              weight 2
              TCP_CHECK {
                  connect_timeout 1
              }
          }
      }
      """;
  static final String VS = "/api/v1/services/" + enc("10.16.0.1:80");

  static String enc(String s) {
    return java.net.URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  @BeforeEach
  void start() throws Exception {
    Path file = dir.resolve("keepalived.conf");
    Files.writeString(file, CONF);
    daemon =
        new Daemon(
            file,
            new KeepalivedLoader(false, CheckSpecs::from),
            table,
            () ->
                CheckEngine.builder()
                    .scheduler(clock)
                    .checkerFactory((vs, rs, spec) -> scripted(spec)),
            Duration.ZERO,
            Clock.systemUTC());
    daemon.start();
    token = AdminToken.generate(dir.resolve("run/admin.token"));
    DaemonMetrics metrics = new DaemonMetrics(() -> ServicesView.of(daemon), daemon.events());
    api = new AdminApi(daemon, () -> {}, metrics::scrape);
    server =
        AdminHttpServer.start(
            new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
            () -> token,
            false,
            Duration.ofSeconds(1),
            api,
            daemon.events());
    base = URI.create("http://127.0.0.1:" + server.address().getPort());
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

  Checker scripted(CheckSpec spec) {
    String target =
        ((TcpCheckSpec) spec).target().getAddress().getHostAddress()
            + ":"
            + ((TcpCheckSpec) spec).target().getPort();
    return new Checker() {
      @Override
      public void check(Consumer<CheckResult> done) {
        done.accept(
            up.getOrDefault(target, true)
                ? CheckResult.ok("connected")
                : CheckResult.fail("connection refused"));
      }

      @Override
      public Duration deadline() {
        return Duration.ofSeconds(1);
      }
    };
  }

  HttpResponse<String> get(String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(5)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }

  HttpResponse<String> post(String path, String body, @Nullable String bearer) throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(base.resolve(path))
            .timeout(Duration.ofSeconds(5))
            .POST(HttpRequest.BodyPublishers.ofString(body));
    if (bearer != null) {
      b.header("Authorization", "Bearer " + bearer);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  String tokenText() throws Exception {
    return AdminToken.readToken(token.file());
  }

  static void assertOneLineError(HttpResponse<String> r, int status, String contains)
      throws Exception {
    assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
    assertThat(r.headers().firstValue("content-type")).hasValue("application/json");
    assertThat(r.body()).doesNotContain("\n");
    JsonNode n = Json.mapper().readTree(r.body());
    assertThat(n.get("status").asInt()).isEqualTo(status);
    assertThat(n.get("error").asText()).contains(contains);
  }

  JsonNode server(String rs) throws Exception {
    HttpResponse<String> r = get(VS + "/servers/" + enc(rs));
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return Json.mapper().readTree(r.body());
  }

  @Test
  void errorsAreOneLineJsonAndChangeNothing() throws Exception {
    List<String> before = table.lines();
    assertOneLineError(get("/nope"), 404, "no route GET /nope");
    assertOneLineError(get(VS + "/servers/" + enc("10.16.1.1:80") + "/state"), 405, "use POST");
    assertOneLineError(get("/api/v1/reload"), 405, "use POST");
    assertOneLineError(
        post(VS + "/servers/" + enc("10.16.1.1:80") + "/state", "{\"state\":\"drain\"}", null),
        401,
        "Authorization: Bearer");
    assertOneLineError(
        post(VS + "/servers/" + enc("10.16.1.1:80") + "/state", "{\"state\":\"drain\"}", "wrong"),
        401,
        "Authorization: Bearer");
    assertOneLineError(post("/api/v1/reload", "{}", "x" + tokenText()), 401, "token");
    // A cookie is no credential.
    HttpResponse<String> cookie =
        http.send(
            HttpRequest.newBuilder(base.resolve(VS + "/servers/" + enc("10.16.1.1:80") + "/state"))
                .header("Cookie", "token=" + tokenText())
                .POST(HttpRequest.BodyPublishers.ofString("{\"state\":\"drain\"}"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertOneLineError(cookie, 401, "Bearer");
    assertOneLineError(
        post(
            VS + "/servers/" + enc("10.16.1.1:80") + "/state",
            "x".repeat(64 * 1024 + 1),
            tokenText()),
        413,
        "larger than 65536");
    assertOneLineError(
        post(
            VS + "/servers/" + enc("10.16.1.1:80") + "/state",
            "{\"state\":\"sleep\"}",
            tokenText()),
        400,
        "drain, maint, ready");
    assertOneLineError(
        post(VS + "/servers/" + enc("10.16.1.1:80") + "/state", "{nope", tokenText()),
        400,
        "bad JSON");
    assertOneLineError(
        get(VS + "/servers/" + enc("10.16.1.9:80")), 404, "choices: 10.16.1.1:80, 10.16.1.2:80");
    assertOneLineError(
        get("/api/v1/services/" + enc("10.16.0.9:80")), 404, "choices: 10.16.0.1:80");
    assertThat(table.lines()).isEqualTo(before);
    assertThat(daemon.admin().settings()).isEmpty();
  }

  /**
   * The 413 is sent before the client has finished sending its body. Closing at once would reset
   * the connection with the body's rest unread, and the client could lose the answer (CI saw
   * "header parser received no bytes"); the listener half-closes and reads the rest away instead.
   */
  @Test
  void anOversizedBodyStillBeingSentGetsItsWhole413() throws Exception {
    for (int i = 0; i < 20; i++) {
      assertOneLineError(
          post(
              VS + "/servers/" + enc("10.16.1.1:80") + "/state",
              "x".repeat(1024 * 1024),
              tokenText()),
          413,
          "larger than 65536");
    }
  }

  @Test
  void halfSentRequestsDoNotBlockTheListenerAndAreClosed() throws Exception {
    List<Socket> slow = new ArrayList<>();
    try {
      for (int i = 0; i < 10; i++) {
        Socket s = new Socket();
        s.connect(server.address(), 2000);
        s.getOutputStream().write("GET /api/v1/serv".getBytes(StandardCharsets.US_ASCII));
        s.getOutputStream().flush();
        slow.add(s);
      }
      HttpResponse<String> r = get("/healthz");
      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(get("/status").body()).contains("10.16.1.1:80");
      // Each half request is closed at the request timeout (1 s here): the read sees end of stream.
      for (Socket s : slow) {
        s.setSoTimeout(10_000);
        InputStream in = s.getInputStream();
        assertThat(in.read()).isEqualTo(-1);
      }
    } finally {
      for (Socket s : slow) {
        s.close();
      }
    }
  }

  @Test
  void drainMaintReadyAndWeightReachTheTable() throws Exception {
    String rs1 = VS + "/servers/" + enc("10.16.1.1:80");
    String rs = VS + "/servers/" + enc("10.16.1.2:80");
    HttpResponse<String> r = post(rs1 + "/state", "{\"state\":\"drain\"}", tokenText());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    // Serving weight 2 is still quorum 2: the drained server stays in the table at weight 0.
    assertThat(table.lines())
        .contains("TCP 10.16.0.1:80 -> 10.16.1.1:80 w=0", "TCP 10.16.0.1:80 -> 10.16.1.2:80 w=2");
    JsonNode s = server("10.16.1.1:80");
    assertThat(s.get("state").asText()).isEqualTo("drain");
    assertThat(s.get("admin_state").asText()).isEqualTo("drain");
    assertThat(s.get("configured_weight").asInt()).isEqualTo(1);
    assertThat(s.get("effective_weight").asInt()).isZero();
    assertThat(s.get("in_table").asBoolean()).isTrue();
    assertThat(s.get("last_check").get("result").asText()).isEqualTo("up");

    // Draining the other too: serving weight 0, quorum lost, the sorry server serves, as for
    // verdicts.
    assertThat(post(rs + "/state", "{\"state\":\"drain\"}", tokenText()).statusCode())
        .isEqualTo(200);
    JsonNode vs = Json.mapper().readTree(get(VS).body());
    assertThat(vs.get("quorum").asText()).isEqualTo("down");
    assertThat(vs.get("sorry_server_state").asText()).isEqualTo("serving");
    assertThat(table.lines()).contains("TCP 10.16.0.1:80 -> 10.16.9.9:80 w=1");
    assertThat(post(rs1 + "/state", "{\"state\":\"ready\"}", tokenText()).statusCode())
        .isEqualTo(200);

    assertThat(post(rs + "/state", "{\"state\":\"maint\"}", tokenText()).statusCode())
        .isEqualTo(200);
    assertThat(server("10.16.1.2:80").get("state").asText()).isEqualTo("maint");
    assertThat(post(rs + "/state", "{\"state\":\"ready\"}", tokenText()).statusCode())
        .isEqualTo(200);
    assertThat(table.lines())
        .contains("TCP 10.16.0.1:80 -> 10.16.1.1:80 w=1", "TCP 10.16.0.1:80 -> 10.16.1.2:80 w=2")
        .doesNotContain("TCP 10.16.0.1:80 -> 10.16.9.9:80 w=1");

    assertThat(post(rs + "/weight", "{\"weight\":7}", tokenText()).statusCode()).isEqualTo(200);
    assertThat(table.lines()).contains("TCP 10.16.0.1:80 -> 10.16.1.2:80 w=7");
    assertThat(server("10.16.1.2:80").get("effective_weight").asInt()).isEqualTo(7);
    assertOneLineError(post(rs + "/weight", "{\"weight\":-1}", tokenText()), 400, ">= 0");

    // The checkers keep running under an admin state and their verdicts are recorded.
    assertThat(post(rs + "/state", "{\"state\":\"drain\"}", tokenText()).statusCode())
        .isEqualTo(200);
    up.put("10.16.1.2:80", false);
    clock.advance(Duration.ofSeconds(30));
    assertThat(server("10.16.1.2:80").get("last_check").get("result").asText()).isEqualTo("down");
    assertThat(server("10.16.1.2:80").get("state").asText()).isEqualTo("down");
  }

  @Test
  void theEventStreamCarriesVerdictsAdminActionsQuorumAndReloads() throws Exception {
    List<String> lines = new CopyOnWriteArrayList<>();
    var stream =
        http.sendAsync(
            HttpRequest.newBuilder(base.resolve("/api/v1/events")).GET().build(),
            HttpResponse.BodyHandlers.ofLines());
    HttpResponse<Stream<String>> r = stream.get(5, TimeUnit.SECONDS);
    assertThat(r.headers().firstValue("content-type").orElse("")).startsWith("text/event-stream");
    Thread reader = new Thread(() -> r.body().forEach(lines::add));
    reader.setDaemon(true);
    reader.start();
    await().atMost(Duration.ofSeconds(5)).until(() -> lines.contains(": fairway events"));

    up.put("10.16.1.1:80", false);
    clock.advance(Duration.ofSeconds(30));
    post(VS + "/servers/" + enc("10.16.1.2:80") + "/state", "{\"state\":\"drain\"}", tokenText());
    Files.writeString(
        dir.resolve("keepalived.conf"), "virtual_server 10.16.0.1 80 {\n lb_algo nosuch\n");
    HttpResponse<String> refused = post("/api/v1/reload", "{}", tokenText());
    assertThat(refused.statusCode()).isEqualTo(422);
    assertThat(Json.mapper().readTree(refused.body()).get("reason").asText())
        .contains("keepalived.conf");
    Files.writeString(dir.resolve("keepalived.conf"), CONF);
    assertThat(post("/api/v1/reload", "{}", tokenText()).statusCode()).isEqualTo(200);

    await()
        .atMost(Duration.ofSeconds(5))
        .untilAsserted(
            () ->
                assertThat(lines)
                    .contains(
                        "event: server_down",
                        "event: admin",
                        "event: sorry_in",
                        "event: quorum_down",
                        "event: reload_refused",
                        "event: reload_ok"));
    String down =
        lines.stream()
            .filter(l -> l.startsWith("data: ") && l.contains("server_down"))
            .findFirst()
            .orElseThrow();
    JsonNode e = Json.mapper().readTree(down.substring(6));
    assertThat(e.get("virtual_server").asText()).isEqualTo("10.16.0.1:80");
    assertThat(e.get("real_server").asText()).isEqualTo("10.16.1.1:80");
    assertThat(e.get("reason").asText()).contains("connection refused");
    assertThat(e.get("time").asText()).matches("\\d{4}-\\d\\d-\\d\\dT.*Z");
    // The drain survived the reload.
    assertThat(server("10.16.1.2:80").get("admin_state").asText()).isEqualTo("drain");
  }

  @Test
  void healthReadyAndMetricsPassPromtool() throws Exception {
    assertThat(get("/healthz").body()).isEqualTo("{\"status\":\"ok\"}");
    assertThat(get("/readyz").body()).isEqualTo("{\"ready\":true}");
    up.put("10.16.1.1:80", false);
    clock.advance(Duration.ofSeconds(30));
    post(VS + "/servers/" + enc("10.16.1.2:80") + "/state", "{\"state\":\"drain\"}", tokenText());
    HttpResponse<String> m = get("/metrics");
    assertThat(m.statusCode()).isEqualTo(200);
    assertThat(m.body())
        .contains(
            "fairway_server_up{real_server=\"10.16.1.1:80\",virtual_server=\"10.16.0.1:80\"} 0")
        .contains(
            "fairway_server_up{real_server=\"10.16.1.2:80\",virtual_server=\"10.16.0.1:80\"} 1")
        .contains(
            "fairway_server_admin_state{real_server=\"10.16.1.2:80\",state=\"drain\",virtual_server=\"10.16.0.1:80\"} 1")
        .contains(
            "fairway_server_weight_effective{real_server=\"10.16.1.2:80\",virtual_server=\"10.16.0.1:80\"} 0")
        .contains("fairway_virtual_server_sorry_server_active{virtual_server=\"10.16.0.1:80\"} 1")
        .contains("fairway_reloads_total{result=\"ok\"} 0")
        .contains("jvm_memory_used_bytes");
    Promtool.assertClean(m.body(), dir);
  }
}
