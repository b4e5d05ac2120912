package io.fairway.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The quick start: demo backends, a generated config, the daemon and the userspace proxy. */
class DemoCommandTest {

  @Test
  void servesThroughTheShardDirectorAndStopsByItself() throws Exception {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    AtomicInteger code = new AtomicInteger(-1);
    Thread demo = new Thread(() -> code.set(Main.execute(
        new String[] {"demo", "--port", "0", "--duration", "15"}, new PrintWriter(out, true), new PrintWriter(err, true))));
    demo.start();
    Pattern vip = Pattern.compile("virtual server (http://127\\.0\\.0\\.1:\\d+)");
    await().atMost(Duration.ofSeconds(20)).until(() -> vip.matcher(out.toString()).find());
    Matcher m = vip.matcher(out.toString());
    assertThat(m.find()).isTrue();
    String url = m.group(1);
    assertThat(out.toString()).contains("stop 1").contains("fairway status --admin 127.0.0.1:");

    // A bounded client: on a starved machine a request must fail the test, not hang it past the demo's end.
    HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    Set<String> backends = new HashSet<>();
    for (int i = 0; i < 24; i++) {
      HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create(url + "/item/" + i)).timeout(Duration.ofSeconds(5)).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(r.body()).startsWith("hello from backend-");
      backends.add(r.body().substring(0, r.body().indexOf(' ', 11)));
      // shard by URL: asking again gives the same backend
      assertThat(client.send(HttpRequest.newBuilder(URI.create(url + "/item/" + i)).timeout(Duration.ofSeconds(5)).build(),
          HttpResponse.BodyHandlers.ofString()).body()).isEqualTo(r.body());
    }
    assertThat(backends).hasSizeGreaterThan(1);
    demo.join(30_000);
    assertThat(code.get()).as(err.toString()).isZero();
    assertThat(out.toString()).contains("demo: stopping");
  }

  @Test
  void badOptionsAreOneLine() {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = Main.execute(new String[] {"demo", "--backends", "12"}, new PrintWriter(out, true), new PrintWriter(err, true));
    assertThat(code).isEqualTo(Main.EXIT_USAGE);
    assertThat(err.toString().strip()).isEqualTo("fairway: --backends must be 1 to 9, got 12");
  }
}
