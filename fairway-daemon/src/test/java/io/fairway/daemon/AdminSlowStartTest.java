package io.fairway.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

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
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ProxySelector;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An operator's {@code ready} after drain or maint starts the server's {@code slow_start}: through
 * the admin API on a running daemon (its slow start stepper in real time, an in-memory table), the
 * weight in the table, {@code GET /status} and the API's {@code slow_start_weight} climb from 1 to
 * the configured weight; a server without {@code slow_start} is back at its weight at once. (8 s
 * ramps: steps of 2 s leave room for a loaded machine.)
 */
class AdminSlowStartTest {
  static final String CONF =
      """
      virtual_server 10.16.0.1 80 {
          lb_algo wrr
          lb_kind NAT
          protocol TCP
          real_server 10.16.1.1 80 {
              weight 1
              TCP_CHECK {
                  connect_timeout 1
              }
          }
          real_server 10.16.1.2 80 {
              weight 4
              slow_start 8
              TCP_CHECK {
                  connect_timeout 1
              }
          }
      }
      """;
  static final String RS = "/api/v1/services/10.16.0.1%3A80/servers/10.16.1.2%3A80";
  static final Pattern WEIGHT =
      Pattern.compile("TCP 10\\.16\\.0\\.1:80 -> 10\\.16\\.1\\.2:80 w=(\\d+)");

  @TempDir Path dir;
  final RecordingTable table = new RecordingTable();
  final HttpClient http =
      HttpClient.newBuilder()
          .proxy(ProxySelector.of(null))
          .connectTimeout(Duration.ofSeconds(2))
          .build();
  Daemon daemon;
  AdminApi api;
  AdminHttpServer server;
  AdminToken token;
  URI base;

  @BeforeEach
  void start() throws Exception {
    Path file = dir.resolve("keepalived.conf");
    Files.writeString(file, CONF);
    // The checks never run (a manual clock nobody moves): every server stays up, as at start.
    daemon =
        new Daemon(
            file,
            new KeepalivedLoader(false, CheckSpecs::from),
            table,
            () ->
                CheckEngine.builder()
                    .scheduler(new ManualClock())
                    .checkerFactory(
                        (vs, rs, spec) ->
                            new Checker() {
                              @Override
                              public void check(Consumer<CheckResult> done) {
                                done.accept(CheckResult.ok("connected"));
                              }

                              @Override
                              public Duration deadline() {
                                return Duration.ofSeconds(1);
                              }
                            }),
            Duration.ZERO,
            Clock.systemUTC());
    daemon.start();
    token = AdminToken.generate(dir.resolve("admin.token"));
    api =
        new AdminApi(
            daemon,
            () -> {},
            new DaemonMetrics(() -> ServicesView.of(daemon), daemon.events())::scrape);
    server =
        AdminHttpServer.start(
            new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
            () -> token,
            false,
            Duration.ofSeconds(5),
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

  int tableWeight() {
    Matcher m = WEIGHT.matcher(String.join("\n", table.lines()));
    assertThat(m.find()).as(table.lines().toString()).isTrue();
    return Integer.parseInt(m.group(1));
  }

  HttpResponse<String> post(String path, String body) throws Exception {
    return http.send(
        HttpRequest.newBuilder(base.resolve(path))
            .timeout(Duration.ofSeconds(30))
            .header("Authorization", "Bearer " + AdminToken.readToken(token.file()))
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  String get(String path) throws Exception {
    return http.send(
            HttpRequest.newBuilder(base.resolve(path))
                .timeout(Duration.ofSeconds(30))
                .GET()
                .build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
  }

  @Test
  void readyAfterDrainOrMaintRampsTheServerUp() throws Exception {
    assertThat(tableWeight()).as("no ramp at start").isEqualTo(4);
    assertThat(post(RS + "/state", "{\"state\":\"drain\"}").statusCode()).isEqualTo(200);
    assertThat(tableWeight()).isZero();
    rampsUpAfterReady();

    assertThat(post(RS + "/state", "{\"state\":\"maint\"}").statusCode()).isEqualTo(200);
    assertThat(table.lines()).noneMatch(l -> l.contains("10.16.1.2:80"));
    rampsUpAfterReady();

    // Without slow_start, ready is the weight at once.
    String other = "/api/v1/services/10.16.0.1%3A80/servers/10.16.1.1%3A80";
    assertThat(post(other + "/state", "{\"state\":\"drain\"}").statusCode()).isEqualTo(200);
    assertThat(post(other + "/state", "{\"state\":\"ready\"}").statusCode()).isEqualTo(200);
    assertThat(table.lines()).contains("TCP 10.16.0.1:80 -> 10.16.1.1:80 w=1");
    assertThat(Json.mapper().readTree(get(other)).get("slow_start_weight").isNull()).isTrue();
  }

  void rampsUpAfterReady() throws Exception {
    HttpResponse<String> ready = post(RS + "/state", "{\"state\":\"ready\"}");
    assertThat(ready.statusCode()).as(ready.body()).isEqualTo(200);
    // Steps of 2 s (8 s, weight 4; long enough for a loaded machine): the first is weight 1, read
    // back
    // at once from all three places.
    int first = tableWeight();
    assertThat(first).as("the table right after ready").isBetween(1, 3);
    JsonNode rs = Json.mapper().readTree(get(RS));
    assertThat(rs.get("slow_start_weight").asInt()).isBetween(1, 3);
    assertThat(rs.get("effective_weight").asInt()).isEqualTo(4);
    assertThat(get("/status"))
        .containsPattern("10\\.16\\.1\\.2:80.*\\(slow start: weight [123] of 4\\)");
    List<Integer> seen = new ArrayList<>(List.of(first));
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(50))
        .until(
            () -> {
              int w = tableWeight();
              if (w != seen.get(seen.size() - 1)) {
                seen.add(w);
              }
              return w == 4 && Json.mapper().readTree(get(RS)).get("slow_start_weight").isNull();
            });
    assertThat(seen)
        .as("weights seen in the table")
        .isSorted()
        .doesNotHaveDuplicates()
        .hasSizeGreaterThanOrEqualTo(3)
        .endsWith(4);
    assertThat(get("/status")).doesNotContain("slow start");
  }
}
