package io.fairway.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.fairway.daemon.Json;
import io.fairway.daemon.Promtool;
import io.fairway.daemon.discovery.Named;
import io.fairway.testkit.FairwayProcess;
import io.fairway.testkit.HttpBackend;
import java.io.IOException;
import java.net.ProxySelector;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code fairway run --userspace} with a virtual server whose real servers come from named (SRV):
 * traffic reaches the discovered servers, and {@code fairway status}, {@code status --json}, {@code
 * GET /api/v1/dns}, the page and {@code /metrics} show them and the last resolution.
 */
class UserspaceDnsRunTest {
  @TempDir Path dir;
  final List<HttpBackend> backends = new ArrayList<>();
  final HttpClient http =
      HttpClient.newBuilder()
          .proxy(ProxySelector.of(null))
          .connectTimeout(Duration.ofSeconds(2))
          .build();

  // Started by each test that needs it, before any use; closed after each when started.
  @SuppressWarnings("NullAway.Init")
  FairwayProcess fairway;

  @SuppressWarnings("NullAway.Init")
  Named named;

  int admin;

  @AfterEach
  void cleanUp() throws Exception {
    if (fairway != null) {
      fairway.close();
    }
    if (named != null) {
      named.close();
    }
    backends.forEach(HttpBackend::close);
  }

  int backend(String name) throws IOException {
    HttpBackend b = new HttpBackend(name);
    backends.add(b);
    return b.port();
  }

  HttpResponse<String> get(String path) throws IOException, InterruptedException {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + admin + path))
            .timeout(Duration.ofSeconds(5))
            .GET()
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void discoveredServersCarryTrafficAndEveryViewShowsThem() throws Exception {
    int p1 = backend("b1");
    int p2 = backend("b2");
    named =
        new Named(
            dir,
            "web IN A 127.0.0.1\n_web._tcp IN SRV 0 1 "
                + p1
                + " web\n_web._tcp IN SRV 0 1 "
                + p2
                + " web\n");
    int vip = UserspaceRunTest.freePort();
    admin = UserspaceRunTest.freePort();
    Path conf = dir.resolve("keepalived.conf");
    Files.writeString(
        conf,
        "virtual_server 127.0.0.1 "
            + vip
            + " {\n    delay_loop 1\n    lb_algo rr\n    lb_kind PROXY\n    protocol TCP\n"
            + "    real_server_dns _web._tcp.pool.test {\n        type SRV\n"
            + "        nameserver 127.0.0.1 "
            + named.port
            + "\n        refresh 1\n        TCP_CHECK {\n            connect_timeout 1\n"
            + "        }\n    }\n}\n");
    fairway =
        FairwayProcess.fromTestClasspath()
            .env("FAIRWAY_RUNTIME_DIR", dir.resolve("run").toString())
            .log(dir.resolve("fairway.log"))
            .start("run", "--userspace", "-f", conf.toString(), "--admin", "127.0.0.1:" + admin);
    String s1 = "web.pool.test:" + p1;
    String s2 = "web.pool.test:" + p2;
    // The servers come with the first answer, are checked, then carry traffic.
    await()
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .until(
            () -> {
              List<String> seen = new ArrayList<>();
              for (int i = 0; i < 4; i++) {
                seen.add(UserspaceRunTest.get(vip));
              }
              return seen.contains("b1") && seen.contains("b2");
            });

    CliRun status = CliRun.run("status", "--admin", "127.0.0.1:" + admin);
    assertThat(status.code()).as(status.err()).isZero();
    assertThat(status.out())
        .contains("real_server_dns:")
        .contains("_web._tcp.pool.test SRV (virtual_server 127.0.0.1:" + vip + ", " + conf + ":6)")
        .contains(": found 2 servers")
        .containsPattern("servers \\(2 of 2 kept, found [^)]+\\): web.pool.test:\\d+, web");

    CliRun json = CliRun.run("status", "--json", "--admin", "127.0.0.1:" + admin);
    assertThat(json.code()).as(json.err()).isZero();
    List<String> names = new ArrayList<>();
    for (JsonNode s : Json.mapper().readTree(json.out()).get(0).get("servers")) {
      names.add(s.get("name").asText());
    }
    assertThat(names).containsExactlyInAnyOrder(s1, s2);

    JsonNode dns = Json.mapper().readTree(get("/api/v1/dns").body()).get("blocks").get(0);
    assertThat(dns.get("result").asText()).isEqualTo("found");
    assertThat(dns.get("location").asText()).isEqualTo(conf + ":6");
    assertThat(dns.get("servers")).hasSize(2);

    assertThat(get("/").body()).contains("<table class=\"dns\" id=\"dns\">").contains(s1);

    String metrics = get("/metrics").body();
    String block = "127.0.0.1:" + vip + " _web._tcp.pool.test SRV";
    assertThat(metrics)
        .contains("fairway_dns_servers{block=\"" + block + "\"} 2.0")
        .containsPattern(
            "fairway_dns_resolutions_total\\{block=\"" + block + "\",result=\"found\"} [1-9]");
    Promtool.assertClean(metrics, dir);
  }
}
