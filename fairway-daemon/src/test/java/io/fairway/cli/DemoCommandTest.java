package io.fairway.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fairway.daemon.ThreadLeaks;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The quick start: demo backends, a generated config, the daemon and the userspace proxy. */
class DemoCommandTest {

  static final Pattern VIP = Pattern.compile("virtual server (http://127\\.0\\.0\\.1:\\d+)");

  /** The demo run in-process on another thread, reading its typed commands from a pipe. */
  static final class Demo {
    final PipedOutputStream typed = new PipedOutputStream();
    final StringWriter out = new StringWriter();
    final StringWriter err = new StringWriter();
    final AtomicInteger code = new AtomicInteger(-1);
    final Thread thread;

    Demo(String... options) throws Exception {
      PipedInputStream in = new PipedInputStream(typed);
      String[] args = new String[options.length + 1];
      args[0] = "demo";
      System.arraycopy(options, 0, args, 1, options.length);
      thread =
          new Thread(
              () ->
                  code.set(
                      Main.execute(
                          args, in, new PrintWriter(out, true), new PrintWriter(err, true))),
              "demo-test");
      thread.start();
      await().atMost(Duration.ofSeconds(20)).until(() -> VIP.matcher(out.toString()).find());
    }

    String url() {
      Matcher m = VIP.matcher(out.toString());
      assertThat(m.find()).isTrue();
      return m.group(1);
    }

    void type(String line) throws Exception {
      typed.write((line + "\n").getBytes(StandardCharsets.UTF_8));
      typed.flush();
    }

    /** Waits for the demo to return, then checks it stopped cleanly. */
    void assertStopped() throws InterruptedException {
      thread.join(30_000);
      assertThat(thread.isAlive()).as("the demo returned").isFalse();
      assertThat(code.get()).as(err.toString()).isZero();
      assertThat(out.toString()).contains("demo: stopping");
    }
  }

  @Test
  void servesThroughTheShardDirectorAndQuitsWhenTold() throws Exception {
    Demo demo = new Demo("--port", "0", "--duration", "60");
    String url = demo.url();
    assertThat(demo.out.toString())
        .contains("stop 1")
        .contains("fairway status --admin 127.0.0.1:");

    // A bounded client: on a starved machine a request must fail the test, not hang it past the
    // demo's end.
    HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    Set<String> backends = new HashSet<>();
    for (int i = 0; i < 24; i++) {
      HttpResponse<String> r =
          client.send(
              HttpRequest.newBuilder(URI.create(url + "/item/" + i))
                  .timeout(Duration.ofSeconds(5))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(r.body()).startsWith("hello from backend-");
      backends.add(r.body().substring(0, r.body().indexOf(' ', 11)));
      // shard by URL: asking again gives the same backend
      assertThat(
              client
                  .send(
                      HttpRequest.newBuilder(URI.create(url + "/item/" + i))
                          .timeout(Duration.ofSeconds(5))
                          .build(),
                      HttpResponse.BodyHandlers.ofString())
                  .body())
          .isEqualTo(r.body());
    }
    assertThat(backends).hasSizeGreaterThan(1);

    demo.type("quit");
    demo.assertStopped();
  }

  /**
   * Typed commands come from the input the demo is given (here a pipe; never the test JVM's own
   * stdin, Maven's line to its test fork). When --duration ends the demo, the reader still waiting
   * on that input ends too, and so does every other thread the demo started.
   */
  @Test
  void stopsByItselfAndNoThreadOutlivesIt() throws Exception {
    Set<Thread> before = ThreadLeaks.snapshot();
    Demo demo = new Demo("--port", "0", "--backends", "2", "--duration", "4");
    demo.type("stop 1");
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> demo.out.toString().contains("demo: backend-1 stopped"));

    demo.assertStopped();

    ThreadLeaks.assertAllEnded(before, Duration.ofSeconds(10));
  }

  static final Pattern PAGE = Pattern.compile("Status page: (http://127\\.0\\.0\\.1:\\d+/)");

  /**
   * The newcomer's first look at the operator's side: the demo serves fairway run's whole admin
   * listener (page, API, metrics, events), not a status-only stub.
   */
  @Test
  void servesTheWholeAdminListener() throws Exception {
    Demo demo = new Demo("--port", "0", "--backends", "2", "--duration", "60");
    Matcher m = PAGE.matcher(demo.out.toString());
    assertThat(m.find()).as(demo.out.toString()).isTrue();
    String admin = m.group(1);
    HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    client.send(
        HttpRequest.newBuilder(URI.create(demo.url() + "/x"))
            .timeout(Duration.ofSeconds(5))
            .build(),
        HttpResponse.BodyHandlers.ofString());

    // The request is counted for the backend it went to, in the API and on the page.
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(get(client, admin + "api/v1/services").body())
                    .contains("\"http\":{\"requests\":1,\"errors\":0,\"retries\":0,\"latency\":{"));
    HttpResponse<String> page = get(client, admin);
    assertThat(page.body()).contains("<td class=\"requests\">1</td>");
    assertThat(page.statusCode()).isEqualTo(200);
    assertThat(page.body()).contains("<title>Fairway status</title>").contains("backend-2");
    assertThat(get(client, admin + "static/status.js").statusCode()).isEqualTo(200);
    assertThat(get(client, admin + "api/v1/services").body())
        .contains("\"name\":\"demo\"")
        .contains("backend-1");
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () ->
                assertThat(get(client, admin + "metrics").body())
                    .contains(
                        "fairway_server_up{real_server=\"backend-1\",virtual_server=\"demo\"} 1")
                    .contains("fairway_http_responses_total{class=\"2xx\",real_server=")
                    .contains("fairway_check_"));
    HttpResponse<java.io.InputStream> events =
        client.send(
            HttpRequest.newBuilder(URI.create(admin + "api/v1/events"))
                .timeout(Duration.ofSeconds(5))
                .build(),
            HttpResponse.BodyHandlers.ofInputStream());
    assertThat(events.statusCode()).isEqualTo(200);
    assertThat(events.headers().firstValue("content-type"))
        .hasValueSatisfying(t -> assertThat(t).startsWith("text/event-stream"));
    events.body().close();

    demo.type("quit");
    demo.assertStopped();
  }

  private static HttpResponse<String> get(HttpClient client, String url) throws Exception {
    return client.send(
        HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void badOptionsAreOneLine() {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code =
        Main.execute(
            new String[] {"demo", "--backends", "12"},
            new PrintWriter(out, true),
            new PrintWriter(err, true));
    assertThat(code).isEqualTo(Main.EXIT_USAGE);
    assertThat(err.toString().strip()).isEqualTo("fairway: --backends must be 1 to 9, got 12");
  }
}
