package io.fairway.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.fairway.daemon.Json;
import io.fairway.daemon.Promtool;
import io.fairway.testkit.FairwayProcess;
import io.fairway.testkit.HttpBackend;
import java.io.IOException;
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
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code fairway run --userspace} as a process with real backends, driven through the CLI and the
 * admin API: drain under wrk load loses no request and moves new connections elsewhere, drain
 * --wait answers at idle (and fails at its timeout while a connection is open), maint and ready,
 * admin state across SIGHUP and across a restart with --state-file, the generated token file, 401
 * from the CLI, metrics that count what was sent.
 */
class UserspaceAdminRunTest {
  @TempDir Path dir;
  final Map<String, HttpBackend> backends = new ConcurrentHashMap<>();
  final HttpClient http =
      HttpClient.newBuilder()
          .proxy(ProxySelector.of(null))
          .connectTimeout(Duration.ofSeconds(2))
          .build();

  // Started by each test that needs it, before any use; closed after each when started.
  @SuppressWarnings("NullAway.Init")
  FairwayProcess fairway;

  int admin;

  @AfterEach
  void cleanUp() throws Exception {
    if (fairway != null) {
      fairway.close();
    }
    backends.values().forEach(HttpBackend::close);
  }

  /** Requests backend {@code name} answered so far. */
  long hitsOf(String name) {
    return Objects.requireNonNull(backends.get(name), "backend() counts each backend")
        .requests
        .get();
  }

  int backend(String name) throws IOException {
    HttpBackend b = new HttpBackend(name);
    backends.put(name, b);
    return b.port();
  }

  void startFairway(Path conf, Path state) throws Exception {
    fairway =
        FairwayProcess.fromTestClasspath()
            .env("FAIRWAY_RUNTIME_DIR", dir.resolve("run").toString())
            .log(dir.resolve("fairway-" + System.nanoTime() + ".log"))
            .start(
                "run",
                "--userspace",
                "-f",
                conf.toString(),
                "--admin",
                "127.0.0.1:" + admin,
                "--state-file",
                state.toString());
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () -> {
              try {
                return get("/readyz").statusCode() == 200;
              } catch (IOException e) {
                return false;
              }
            });
  }

  HttpResponse<String> get(String path) throws IOException, InterruptedException {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + admin + path))
            .timeout(Duration.ofSeconds(5))
            .GET()
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  CliRun cli(String... args) {
    List<String> a = new ArrayList<>(List.of(args));
    a.addAll(
        List.of("--admin", "127.0.0.1:" + admin, "--admin-token-file", tokenFile().toString()));
    return CliRun.run(a.toArray(String[]::new));
  }

  Path tokenFile() {
    return dir.resolve("run").resolve("admin-" + admin + ".token");
  }

  JsonNode server(String rs) throws Exception {
    CliRun r = CliRun.run("status", "--json", "--admin", "127.0.0.1:" + admin);
    assertThat(r.code()).as(r.err()).isZero();
    for (JsonNode vs : Json.mapper().readTree(r.out())) {
      for (JsonNode s : vs.get("servers")) {
        if (s.get("name").asText().equals(rs)) {
          return s;
        }
      }
    }
    throw new AssertionError("no " + rs + " in " + r.out());
  }

  static Process wrk(int vip, String duration) throws IOException {
    Path wrk = io.fairway.testkit.ExternalPrograms.require("wrk", "/usr/bin/wrk");
    return new ProcessBuilder(
            wrk.toString(), "-t1", "-c4", "-d" + duration, "http://127.0.0.1:" + vip + "/")
        .redirectErrorStream(true)
        .start();
  }

  /** Whether the other end closed the socket (end of stream), without blocking for long. */
  static boolean closedByPeer(Socket k) {
    try {
      return k.getInputStream().read() == -1;
    } catch (java.net.SocketTimeoutException e) {
      return false;
    } catch (IOException e) {
      return true;
    }
  }

  static double metric(String scrape, String name, String rs) {
    Matcher m =
        Pattern.compile(
                "^"
                    + Pattern.quote(name)
                    + "\\{real_server=\""
                    + Pattern.quote(rs)
                    + "\",virtual_server=\"[^\"]+\"} (\\S+)$",
                Pattern.MULTILINE)
            .matcher(scrape);
    assertThat(m.find()).as(name + " for " + rs + " in\n" + scrape).isTrue();
    return Double.parseDouble(m.group(1));
  }

  @Test
  void drainMaintReadyUnderLoadAcrossReloadAndRestart() throws Exception {
    int p1 = backend("b1");
    int p2 = backend("b2");
    int vip = UserspaceRunTest.freePort();
    admin = UserspaceRunTest.freePort();
    Path conf = dir.resolve("keepalived.conf");
    Files.writeString(conf, UserspaceRunTest.conf(vip, p1, p2));
    Path state = dir.resolve("state.json");
    startFairway(conf, state);
    String b1 = "127.0.0.1:" + p1;
    String vs = "127.0.0.1:" + vip;

    // The generated token: 0600 in the runtime directory, its path logged.
    assertThat(Files.getPosixFilePermissions(tokenFile()))
        .isEqualTo(PosixFilePermissions.fromString("rw-------"));
    assertThat(fairway.log()).contains("admin token written to " + tokenFile());
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> {
              if (hitsOf("b1") > 0 && hitsOf("b2") > 0) {
                return true;
              }
              UserspaceRunTest.get(vip); // one request more: the servers are hit by traffic
              return false;
            });

    // Metrics count what was sent: 20 requests, 20 connections more over the two servers.
    String before = get("/metrics").body();
    for (int i = 0; i < 20; i++) {
      assertThat(UserspaceRunTest.get(vip)).isIn("b1", "b2");
    }
    String after = get("/metrics").body();
    double delta =
        metric(after, "fairway_server_connections_total", b1)
            - metric(before, "fairway_server_connections_total", b1)
            + metric(after, "fairway_server_connections_total", "127.0.0.1:" + p2)
            - metric(before, "fairway_server_connections_total", "127.0.0.1:" + p2);
    assertThat(delta).isEqualTo(20.0);
    // Every check attempt is timed and counted by outcome (once the first check has run).
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () ->
                assertThat(get("/metrics").body())
                    .containsPattern(
                        "fairway_check_results_total\\{check=\"tcp\",outcome=\"success\",real_server=\""
                            + Pattern.quote(b1)
                            + "\",virtual_server=\"[^\"]+\"} [1-9]")
                    .containsPattern(
                        "fairway_check_duration_seconds_count\\{check=\"tcp\",real_server=\""
                            + Pattern.quote(b1)
                            + "\",virtual_server=\"[^\"]+\"} [1-9]"));
    Promtool.assertClean(after, dir);

    // Drain under wrk load (keep-alive connections): established connections carry on (drain is
    // weight 0, not removal), new connections go to b2 only, and drain --wait answers once wrk's
    // connections are gone. wrk sees no error.
    Process load = wrk(vip, "10s");
    long atStart = hitsOf("b1");
    await().atMost(Duration.ofSeconds(10)).until(() -> hitsOf("b1") > atStart + 50);
    CliRun drain = cli("server", "drain", vs, b1);
    assertThat(drain.code()).as(drain.err()).isZero();
    long b1AtDrain = hitsOf("b1");
    for (int i = 0; i < 20; i++) {
      assertThat(UserspaceRunTest.get(vip)).as("a new connection after the drain").isEqualTo("b2");
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> hitsOf("b1") > b1AtDrain + 50);
    assertThat(server(b1).get("active_connections").asInt())
        .as("wrk's connections to b1 continue")
        .isPositive();
    CliRun idle = cli("server", "drain", vs, b1, "--wait", "--timeout", "40s");
    assertThat(idle.code()).as(idle.err()).isZero();
    assertThat(idle.out()).contains("drained, no active connection left");
    assertThat(load.waitFor(30, TimeUnit.SECONDS)).isTrue();
    String wrkOut = new String(load.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(wrkOut)
        .as(wrkOut)
        .contains("requests in")
        .doesNotContain("Socket errors")
        .doesNotContain("Non-2xx");
    JsonNode s = server(b1);
    assertThat(s.get("state").asText()).isEqualTo("drain");
    assertThat(s.get("active_connections").asInt()).isZero();
    assertThat(s.get("effective_weight").asInt()).isZero();

    // maint: out of the table; ready: back, and traffic reaches it again.
    assertThat(cli("server", "maint", vs, b1).code()).isZero();
    assertThat(server(b1).get("in_table").asBoolean()).isFalse();
    assertThat(cli("server", "ready", vs, b1).code()).isZero();
    long b1Ready = hitsOf("b1");
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () -> {
              UserspaceRunTest.get(vip);
              return hitsOf("b1") > b1Ready;
            });

    // drain --wait with a connection open to the server: 408 at the timeout, exit 1.
    String p2s = "127.0.0.1:" + p2;
    List<Socket> held = new ArrayList<>();
    try {
      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () -> {
                Socket k = new Socket();
                k.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), vip), 2000);
                held.add(k);
                return server(p2s).get("active_connections").asInt() > 0
                    && server(b1).get("active_connections").asInt() > 0;
              });
      CliRun timeout = cli("server", "drain", vs, p2s, "--wait", "--timeout", "1s");
      assertThat(timeout.code()).isEqualTo(1);
      assertThat(timeout.err())
          .startsWith("fairway: ")
          .contains("active connection")
          .doesNotContain("\n\tat");

      // maint closes established connections as removal does (drain left them open).
      for (Socket k : held) {
        k.setSoTimeout(50);
      }
      assertThat(cli("server", "maint", vs, b1).code()).isZero();
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> server(b1).get("active_connections").asInt() == 0);
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> held.stream().anyMatch(UserspaceAdminRunTest::closedByPeer));
      assertThat(server(p2s).get("active_connections").asInt())
          .as("the drained server's stay open")
          .isPositive();
      assertThat(cli("server", "ready", vs, b1).code()).isZero();
    } finally {
      for (Socket k : held) {
        k.close();
      }
    }
    assertThat(cli("server", "drain", vs, p2s, "--wait", "--timeout", "20s").code()).isZero();
    assertThat(cli("server", "weight", vs, b1, "5").code()).isZero();
    assertThat(server(b1).get("effective_weight").asInt()).isEqualTo(5);

    // SIGHUP keeps admin state for servers that still exist.
    fairway.signal("HUP");
    await().atMost(Duration.ofSeconds(30)).until(() -> fairway.log().contains("reloaded "));
    assertThat(server(p2s).get("admin_state").asText()).isEqualTo("drain");
    assertThat(server(b1).get("effective_weight").asInt()).isEqualTo(5);

    // Restart with the same --state-file: still drained.
    assertThat(fairway.stop(Duration.ofSeconds(30))).isZero();
    assertThat(tokenFile()).as("the generated token goes with the process").doesNotExist();
    JsonNode saved = Json.mapper().readTree(state.toFile());
    assertThat(saved.get("servers").toString()).contains("\"drain\"");
    startFairway(conf, state);
    assertThat(server(p2s).get("admin_state").asText()).isEqualTo("drain");
    assertThat(server(b1).get("effective_weight").asInt()).isEqualTo(5);

    // Wrong token: 401, one line naming where the token is read from, nothing changed.
    Path wrong = dir.resolve("wrong.token");
    Files.writeString(wrong, "nope\n");
    CliRun refused =
        CliRun.run(
            "server",
            "ready",
            vs,
            p2s,
            "--admin",
            "127.0.0.1:" + admin,
            "--admin-token-file",
            wrong.toString());
    assertThat(refused.code()).isEqualTo(1);
    assertThat(refused.err())
        .contains("token was refused")
        .contains(wrong.toString())
        .hasLineCount(1);
    assertThat(server(p2s).get("admin_state").asText()).isEqualTo("drain");
    CliRun unknown = cli("server", "drain", vs, "127.0.0.1:1");
    assertThat(unknown.code()).isEqualTo(1);
    assertThat(unknown.err()).contains("choices: " + b1 + ", " + p2s).hasLineCount(1);

    assertThat(fairway.log()).doesNotContain("\tat ");
  }

  static double sum(String scrape, String name, String labelFilter) {
    double total = 0;
    Matcher m =
        Pattern.compile("^" + Pattern.quote(name) + "\\{([^}]*)} (\\S+)$", Pattern.MULTILINE)
            .matcher(scrape);
    while (m.find()) {
      if (m.group(1).contains(labelFilter)) {
        total += Double.parseDouble(m.group(2));
      }
    }
    return total;
  }

  @Test
  void httpMetricsCountEveryRequestAndPassPromtool() throws Exception {
    int p1 = backend("b1");
    int p2 = backend("b2");
    int vip = UserspaceRunTest.freePort();
    admin = UserspaceRunTest.freePort();
    Path conf = dir.resolve("keepalived.conf");
    Files.writeString(
        conf, UserspaceRunTest.conf(vip, p1, p2).replace("lb_kind PROXY", "lb_kind HTTP"));
    startFairway(conf, dir.resolve("state.json"));
    HttpClient c =
        HttpClient.newBuilder()
            .proxy(ProxySelector.of(null))
            .version(HttpClient.Version.HTTP_1_1)
            .build();
    HttpRequest req =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + vip + "/"))
            .timeout(Duration.ofSeconds(5))
            .build();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> {
              try {
                return c.send(req, HttpResponse.BodyHandlers.ofString()).statusCode() == 200;
              } catch (IOException e) {
                return false;
              }
            });
    String before = get("/metrics").body();
    for (int i = 0; i < 30; i++) {
      assertThat(c.send(req, HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
    }
    String after = get("/metrics").body();
    assertThat(
            sum(after, "fairway_http_responses_total", "class=\"2xx\"")
                - sum(before, "fairway_http_responses_total", "class=\"2xx\""))
        .isEqualTo(30.0);
    assertThat(
            sum(after, "fairway_http_request_duration_seconds_count", "")
                - sum(before, "fairway_http_request_duration_seconds_count", ""))
        .isEqualTo(30.0);
    assertThat(sum(after, "fairway_http_backend_connect_seconds_count", "")).isPositive();
    assertThat(after)
        .containsPattern(
            "fairway_http_request_duration_seconds_bucket\\{real_server=\"127.0.0.1:"
                + p1
                + "\",virtual_server=\"[^\"]+\",le=\"\\+Inf\"} [1-9]");
    Promtool.assertClean(after, dir);
  }
}
