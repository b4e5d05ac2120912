package io.fairway.daemon.discovery;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fairway.config.KeepalivedConfig;
import io.fairway.config.ParseOptions;
import io.fairway.config.model.Config;
import io.fairway.daemon.admin.AdminRequest;
import io.fairway.daemon.admin.AdminResponse;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The last resolution of each block as {@code fairway status}, {@code GET /api/v1/dns}, the status
 * page and {@code /metrics} show it, after resolutions against a real name server (named).
 */
class DnsStatusTest {
  @TempDir Path dir;

  // Started by each test that needs it, before any use; closed after each when started.
  @SuppressWarnings("NullAway.Init")
  Named named;

  final DnsResolver resolver = new DnsResolver(Duration.ofSeconds(2));

  @AfterEach
  void stop() throws Exception {
    if (named != null) {
      named.close();
    }
    resolver.close();
  }

  Discovery resolved() throws Exception {
    named = new Named(dir, "a IN A 127.0.3.2\na IN A 127.0.3.1\n");
    String text =
        "virtual_server 127.0.0.1 80 {\n    protocol TCP\n    lb_algo rr\n"
            + "    real_server_dns a.pool.test {\n        type A\n        port 81\n"
            + "        nameserver 127.0.0.1 "
            + named.port
            + "\n    }\n"
            + "    real_server_dns none.pool.test {\n        type A\n"
            + "        nameserver 127.0.0.1 "
            + named.port
            + "\n    }\n}\n";
    Config c = KeepalivedConfig.parse("dns.conf", text, dir, ParseOptions.defaults()).config();
    Discovery d = new Discovery(resolver, Clock.systemUTC());
    d.refresh(c).join();
    d.refresh(c).join();
    d.expand(c);
    return d;
  }

  @Test
  void statusTextJsonPageAndMetrics() throws Exception {
    Discovery d = resolved();

    assertThat(DnsStatus.text(d.states()))
        .contains("a.pool.test A (virtual_server 127.0.0.1:80, dns.conf:4)")
        .contains(": found 2 servers")
        .contains("servers (2 of 2 kept, found ")
        .contains("127.0.3.1:81, 127.0.3.2:81")
        .contains("none.pool.test A (virtual_server 127.0.0.1:80, dns.conf:9)")
        .contains(": gone (NXDOMAIN)")
        .contains("servers (0 of 0 kept): none");
    assertThat(DnsStatus.text(List.of())).isEmpty();

    DnsRoutes routes =
        new DnsRoutes(
            r ->
                CompletableFuture.completedFuture(
                    AdminResponse.of(
                        200,
                        "text/html; charset=utf-8",
                        "<div id=\"services\"></div>\n<p class=\"foot\">x</p>"
                            .getBytes(StandardCharsets.UTF_8))),
            d);
    AdminResponse api = routes.handle(get("api", "v1", "dns")).join();
    assertThat(api.status()).isEqualTo(200);
    JsonNode blocks = new ObjectMapper().readTree(api.body()).get("blocks");
    assertThat(blocks).hasSize(2);
    JsonNode a = blocks.get(0);
    assertThat(a.get("name").asText()).isEqualTo("a.pool.test");
    assertThat(a.get("virtual_server").asText()).isEqualTo("127.0.0.1:80");
    assertThat(a.get("location").asText()).isEqualTo("dns.conf:4");
    assertThat(a.get("result").asText()).isEqualTo("found");
    assertThat(a.get("answers").asInt()).isEqualTo(2);
    assertThat(a.get("kept").asInt()).isEqualTo(2);
    assertThat(a.get("servers").toString()).isEqualTo("[\"127.0.3.1:81\",\"127.0.3.2:81\"]");
    assertThat(a.get("resolutions").get("found").asLong()).isEqualTo(2);
    assertThat(a.get("last_resolution").asText()).endsWith("Z");
    assertThat(blocks.get(1).get("error").asText()).isEqualTo("NXDOMAIN");
    assertThat(blocks.get(1).get("last_found").isNull()).isTrue();
    assertThat(
            routes
                .handle(
                    new AdminRequest(
                        "POST", List.of("api", "v1", "dns"), Map.of(), new byte[0], true))
                .join()
                .status())
        .isEqualTo(405);

    String page = new String(routes.handle(get()).join().body(), StandardCharsets.UTF_8);
    assertThat(page)
        .containsSubsequence(
            "<div id=\"services\">",
            "<table class=\"dns\" id=\"dns\">",
            "<td>a.pool.test</td>",
            "127.0.3.1:81, 127.0.3.2:81",
            "<tr class=\"dns-gone\"><td>none.pool.test</td>",
            "gone: NXDOMAIN",
            "<p class=\"foot\">");

    PrometheusRegistry registry = new PrometheusRegistry();
    DnsMetrics.register(registry, () -> d);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    PrometheusTextFormatWriter.create()
        .write(out, registry.scrape(), io.prometheus.metrics.config.EscapingScheme.DEFAULT);
    assertThat(out.toString(StandardCharsets.UTF_8))
        .contains(
            "fairway_dns_resolutions_total{block=\"127.0.0.1:80 a.pool.test A\",result=\"found\"} 2.0")
        .contains(
            "fairway_dns_resolutions_total{block=\"127.0.0.1:80 none.pool.test A\",result=\"gone\"} 2.0")
        .contains("fairway_dns_servers{block=\"127.0.0.1:80 a.pool.test A\"} 2.0")
        .contains("fairway_dns_servers{block=\"127.0.0.1:80 none.pool.test A\"} 0.0")
        .contains(
            "fairway_dns_last_resolution_timestamp_seconds{block=\"127.0.0.1:80 a.pool.test A\"}");
  }

  private static AdminRequest get(String... path) {
    return new AdminRequest("GET", List.of(path), Map.of(), new byte[0], true);
  }
}
