package io.fairway.daemon.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.fairway.daemon.Json;
import io.fairway.daemon.admin.AdminApi;
import io.fairway.daemon.admin.AdminHttpServer;
import io.fairway.daemon.admin.AdminToken;
import io.fairway.daemon.admin.DaemonMetrics;
import io.fairway.daemon.admin.ServicesView;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #31: while the userspace proxy overflows new connections to the sorry server ({@code
 * overflow_to_sorry_server}, the pool over its {@code uthreshold}), the runtime API and the metrics
 * say so and count its connections, through real sockets: a held client on the one real server, a
 * second client that the proxy relays to the sorry server, and the admin listener read over HTTP.
 */
class SorryOverflowStateTest {
  @TempDir Path dir;
  Backends backends;
  UserspaceDaemon fairway;
  AdminApi api;
  AdminHttpServer admin;
  final HttpClient http = PlanReloadTest.client();

  @BeforeEach
  void start() throws Exception {
    backends = new Backends(2, Set.of());
    int vip = UserspaceDaemon.freePort();
    String conf =
        "virtual_server 127.0.0.1 "
            + vip
            + " {\n name web\n lb_algo rr\n lb_kind PROXY\n protocol TCP\n"
            + " sorry_server 127.0.0.1 "
            + backends.port("b1")
            + "\n overflow_to_sorry_server\n"
            + " real_server 127.0.0.1 "
            + backends.port("b0")
            + " {\n  name b0\n  uthreshold 1\n }\n}\n";
    fairway = new UserspaceDaemon(dir.resolve("keepalived.conf"), conf);
    AdminToken t = AdminToken.generate(dir.resolve("run/admin.token"));
    DaemonMetrics metrics =
        new DaemonMetrics(() -> ServicesView.of(fairway.daemon), fairway.daemon.events());
    api = new AdminApi(fairway.daemon, () -> {}, metrics::scrape);
    admin =
        AdminHttpServer.start(
            new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
            () -> t,
            false,
            Duration.ofSeconds(5),
            api,
            fairway.daemon.events());
  }

  @AfterEach
  void stop() throws Exception {
    if (admin != null) {
      admin.close();
    }
    if (api != null) {
      api.close();
    }
    if (fairway != null) {
      fairway.close();
    }
    if (backends != null) {
      backends.close();
    }
  }

  String get(String path) throws Exception {
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + admin.address().getPort() + path))
                .timeout(Duration.ofSeconds(10))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return r.body();
  }

  JsonNode web() throws Exception {
    return Json.mapper().readTree(get("/api/v1/services")).get(0);
  }

  @Test
  void overflowToTheSorryServerIsShownAsOverflowAndCounted() throws Exception {
    int vip = fairway.port("web");
    assertThat(web().get("sorry_server_state").asText()).isEqualTo("idle");
    try (Socket first = new Socket("127.0.0.1", vip)) {
      assertThat(PlanReloadTest.rawGet(first, Duration.ofSeconds(10))).isEqualTo("b0");
      assertThat(web().get("sorry_server_state").asText()).isEqualTo("idle");
      // b0 is at its uthreshold of one connection: the next goes to the sorry server.
      try (Socket second = new Socket("127.0.0.1", vip)) {
        assertThat(PlanReloadTest.rawGet(second, Duration.ofSeconds(10))).isEqualTo("b1");
        JsonNode vs = web();
        assertThat(vs.get("quorum").asText()).isEqualTo("up");
        assertThat(vs.get("sorry_server_state").asText()).isEqualTo("overflow");
        assertThat(vs.get("sorry_active_connections").asLong()).isEqualTo(1);
        assertThat(vs.get("sorry_connections_total").asLong()).isEqualTo(1);
        assertThat(get("/metrics"))
            .contains("fairway_virtual_server_sorry_server_overflow{virtual_server=\"web\"} 1")
            .contains("fairway_virtual_server_sorry_server_active{virtual_server=\"web\"} 0");
      }
    }
    // Both clients gone: the sorry server stands by again, its total kept.
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              JsonNode vs = web();
              assertThat(vs.get("sorry_server_state").asText()).isEqualTo("idle");
              assertThat(vs.get("sorry_active_connections").asLong()).isZero();
              assertThat(vs.get("sorry_connections_total").asLong()).isEqualTo(1);
            });
  }
}
