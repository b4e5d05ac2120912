package io.fairway.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fairway.cli.Main;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The Grafana dashboard the package ships names only metrics that exist: every metric in its
 * queries is found in a live {@code /metrics} of {@code fairway demo} (the userspace plane with
 * HTTP traffic and health checks), so a renamed metric cannot leave an empty panel behind.
 */
class DashboardTest {
  static final Path DASHBOARD = Path.of("dist/grafana/fairway.json");
  static final Pattern METRIC = Pattern.compile("\\bfairway_[a-z0-9_]+");
  static final Pattern VIP = Pattern.compile("virtual server (http://127\\.0\\.0\\.1:\\d+)");
  static final Pattern PAGE = Pattern.compile("Status page: (http://127\\.0\\.0\\.1:\\d+/)");

  @Test
  void everyQueriedMetricIsInALiveScrape() throws Exception {
    JsonNode d = new ObjectMapper().readTree(DASHBOARD.toFile());
    assertThat(d.path("title").asText()).isEqualTo("Fairway");
    List<String> exprs = new ArrayList<>();
    d.findValues("expr").forEach(e -> exprs.add(e.asText()));
    d.findValues("definition").forEach(e -> exprs.add(e.asText()));
    Set<String> names = new TreeSet<>();
    for (String e : exprs) {
      Matcher m = METRIC.matcher(e);
      while (m.find()) {
        names.add(m.group());
      }
    }
    assertThat(names).hasSizeGreaterThan(10);

    PipedOutputStream typed = new PipedOutputStream();
    PipedInputStream in = new PipedInputStream(typed);
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    Thread demo =
        new Thread(
            () ->
                Main.execute(
                    new String[] {"demo", "--port", "0", "--backends", "2", "--duration", "60"},
                    in,
                    new PrintWriter(out, true),
                    new PrintWriter(err, true)),
            "dashboard-demo");
    demo.start();
    try {
      await().atMost(Duration.ofSeconds(30)).until(() -> PAGE.matcher(out.toString()).find());
      Matcher vip = VIP.matcher(out.toString());
      Matcher page = PAGE.matcher(out.toString());
      assertThat(vip.find() && page.find()).as(out.toString()).isTrue();
      HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
      for (int i = 0; i < 10; i++) {
        assertThat(get(client, vip.group(1) + "/item/" + i).statusCode()).isEqualTo(200);
      }
      String metrics = page.group(1) + "metrics";
      await()
          .atMost(Duration.ofSeconds(20))
          .untilAsserted(
              () -> {
                Set<String> scraped = scrapedNames(get(client, metrics).body());
                assertThat(scraped).as("metrics the dashboard queries").containsAll(names);
              });
    } finally {
      typed.write("quit\n".getBytes(StandardCharsets.UTF_8));
      typed.flush();
      demo.join(30_000);
    }
    assertThat(demo.isAlive()).isFalse();
  }

  /** The names of the samples in a Prometheus text scrape. */
  static Set<String> scrapedNames(String scrape) {
    Set<String> out = new TreeSet<>();
    for (String line : scrape.split("\n")) {
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      int end = 0;
      while (end < line.length() && line.charAt(end) != '{' && line.charAt(end) != ' ') {
        end++;
      }
      out.add(line.substring(0, end));
    }
    return out;
  }

  private static HttpResponse<String> get(HttpClient client, String url) throws Exception {
    return client.send(
        HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5)).build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
