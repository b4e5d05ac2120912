package io.fairway.cli;

import static io.fairway.cli.LoopbackHttp.raw;
import static io.fairway.cli.LoopbackHttp.readHead;
import static io.fairway.cli.LoopbackHttp.status;
import static io.fairway.cli.LoopbackHttp.value;
import static io.fairway.cli.LoopbackHttp.virtualServer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fairway.daemon.Promtool;
import io.fairway.testkit.FairwayProcess;
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
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The userspace data plane's own metrics, through a running {@code fairway run --userspace} on
 * loopback; promtool checks every scrape.
 *
 * <ul>
 *   <li>The HTTP proxy's own error responses: a backend that closes without answering (502, after
 *       the retry found no other server), one that never answers (504 at {@code first_byte}), one
 *       whose port is closed (502 and a connect failure) are each counted for that real server;
 *       once that server is in maintenance the 503 has no server and is counted for its virtual
 *       server.
 *   <li>The queue: with its one real server at {@code max_conns}, the next connection waits and the
 *       metrics say so, then that it timed out once the proxy closed it.
 *   <li>HTTP/1.1 and HTTP/2 apart: connections by protocol, HTTP/2's streams, a flood and a
 *       protocol error by their counters.
 * </ul>
 */
class ProxyMetricsRunTest {
  @TempDir Path dir;
  final List<Socket> held = new CopyOnWriteArrayList<>();

  /** What a holding backend accepted. */
  final List<Socket> accepted = new CopyOnWriteArrayList<>();

  final LoopbackHttp net = new LoopbackHttp();

  // Started by each test that needs it, before any use; closed after each when started.
  @SuppressWarnings("NullAway.Init")
  FairwayProcess fairway;

  int admin;

  @AfterEach
  void cleanUp() throws Exception {
    if (fairway != null) {
      fairway.close();
    }
    for (Socket s : held) {
      s.close();
    }
    for (Socket s : accepted) {
      s.close();
    }
    net.close();
  }

  /**
   * A backend that reads a request head and then closes ({@code close} false: holds the connection
   * open and never answers).
   */
  int backend(boolean close) throws IOException {
    return net.backend(
        c -> {
          readHead(c);
          if (close) {
            c.close();
          } else {
            held.add(c);
          }
        });
  }

  /** {@code fairway run --userspace} of {@code conf} with the admin listener, once it is ready. */
  void start(Path conf) throws IOException {
    fairway =
        FairwayProcess.fromTestClasspath()
            .env("FAIRWAY_RUNTIME_DIR", dir.resolve("run").toString())
            .log(dir.resolve("fairway.log"))
            .start("run", "--userspace", "-f", conf.toString(), "--admin", "127.0.0.1:" + admin);
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
    return net.admin(admin, path);
  }

  static String rs(int port) {
    return "real_server=\"127.0.0.1:" + port + "\"";
  }

  static String vsl(int port) {
    return "virtual_server=\"127.0.0.1:" + port + "\"";
  }

  @Test
  void proxyErrorsAreCountedForTheirServerOrTheirVirtualServer() throws Exception {
    int closer = backend(true);
    int silent = backend(false);
    int refused = UserspaceRunTest.freePort();
    int vipA = UserspaceRunTest.freePort();
    int vipB = UserspaceRunTest.freePort();
    int vipC = UserspaceRunTest.freePort();
    int garbage = net.answering("HTTP/1.1 two hundred OK\r\n\r\n");
    int vipD = UserspaceRunTest.freePort();
    admin = UserspaceRunTest.freePort();
    Path conf = dir.resolve("keepalived.conf");
    Files.writeString(
        conf,
        virtualServer(vipA, closer, "")
            + virtualServer(vipB, silent, "    proxy_timeouts {\n        first_byte 1\n    }\n")
            + virtualServer(vipC, refused, "")
            + virtualServer(vipD, garbage, ""));
    start(conf);

    for (int i = 0; i < 3; i++) {
      assertThat(status(vipA)).as("a backend that closes without answering").isEqualTo(502);
      assertThat(status(vipC)).as("a backend whose port is closed").isEqualTo(502);
    }
    for (int i = 0; i < 2; i++) {
      assertThat(status(vipB)).as("a backend that never answers").isEqualTo(504);
    }
    for (int i = 0; i < 2; i++) {
      assertThat(status(vipD)).as("a backend whose response cannot be parsed").isEqualTo(502);
    }
    assertThat(raw(vipA, "GET / HTTP/1.1\r\nConnection: close\r\n\r\n"))
        .as("a request without Host")
        .isEqualTo(400);
    String m = get("/metrics").body();
    // The failures by cause, each for its server.
    String errors = "fairway_http_backend_errors_total";
    assertThat(value(m, errors, vsl(vipA), rs(closer), "cause=\"reset\"")).isEqualTo(3);
    assertThat(value(m, errors, vsl(vipA), rs(closer), "cause=\"connect\"")).isZero();
    assertThat(value(m, errors, vsl(vipB), rs(silent), "cause=\"timeout\"")).isEqualTo(2);
    assertThat(value(m, errors, vsl(vipB), rs(silent), "cause=\"reset\"")).isZero();
    assertThat(value(m, errors, vsl(vipC), rs(refused), "cause=\"connect\"")).isEqualTo(3);
    assertThat(value(m, errors, vsl(vipD), rs(garbage), "cause=\"invalid\"")).isEqualTo(2);
    assertThat(value(m, errors, vsl(vipD), rs(garbage), "cause=\"timeout\"")).isZero();
    // The client's bad request, for its virtual server, by code; none before a server answered.
    assertThat(value(m, "fairway_http_client_errors_total", vsl(vipA), "code=\"400\""))
        .isEqualTo(1);
    assertThat(value(m, "fairway_http_client_errors_total", vsl(vipB), "code=\"400\"")).isZero();
    assertThat(value(m, "fairway_http_backend_first_byte_seconds_count", vsl(vipB), rs(silent)))
        .isZero();
    // 502 after the retry on another server found none: the server the request went to.
    assertThat(
            value(
                m, "fairway_http_generated_responses_total", vsl(vipA), rs(closer), "code=\"502\""))
        .isEqualTo(3);
    assertThat(
            value(
                m, "fairway_http_generated_responses_total", vsl(vipA), rs(closer), "code=\"504\""))
        .isZero();
    assertThat(value(m, "fairway_http_responses_total", vsl(vipA), rs(closer), "class=\"5xx\""))
        .isEqualTo(3);
    assertThat(value(m, "fairway_http_retries_total", vsl(vipA), rs(closer))).isEqualTo(3);
    assertThat(value(m, "fairway_http_backend_connect_failures_total", vsl(vipA), rs(closer)))
        .isZero();
    // 504 at first_byte: counted, and its duration is in the histogram at no less than 1 s.
    assertThat(
            value(
                m, "fairway_http_generated_responses_total", vsl(vipB), rs(silent), "code=\"504\""))
        .isEqualTo(2);
    assertThat(value(m, "fairway_http_responses_total", vsl(vipB), rs(silent), "class=\"5xx\""))
        .isEqualTo(2);
    assertThat(value(m, "fairway_http_request_duration_seconds_count", vsl(vipB), rs(silent)))
        .isEqualTo(2);
    assertThat(
            value(
                m,
                "fairway_http_request_duration_seconds_bucket",
                vsl(vipB),
                rs(silent),
                "le=\"0.5\""))
        .isZero();
    // A closed port: a connect failure per request, and the 502 for that server.
    assertThat(
            value(
                m,
                "fairway_http_generated_responses_total",
                vsl(vipC),
                rs(refused),
                "code=\"502\""))
        .isEqualTo(3);
    assertThat(value(m, "fairway_http_backend_connect_failures_total", vsl(vipC), rs(refused)))
        .isEqualTo(3);
    assertThat(value(m, "fairway_http_responses_total", vsl(vipC), rs(refused), "class=\"5xx\""))
        .isEqualTo(3);
    assertThat(value(m, "fairway_http_no_server_responses_total", vsl(vipC), "code=\"503\""))
        .isZero();
    Promtool.assertClean(m, dir);

    // No server at all (the only one in maintenance, out of the table): the virtual server's.
    CliRun maint =
        CliRun.run(
            "server",
            "maint",
            "127.0.0.1:" + vipC,
            "127.0.0.1:" + refused,
            "--admin",
            "127.0.0.1:" + admin,
            "--admin-token-file",
            dir.resolve("run").resolve("admin-" + admin + ".token").toString());
    assertThat(maint.code()).as(maint.err()).isZero();
    for (int i = 0; i < 4; i++) {
      assertThat(status(vipC)).as("no server left").isEqualTo(503);
    }

    String after = get("/metrics").body();
    assertThat(value(after, "fairway_http_no_server_responses_total", vsl(vipC), "code=\"503\""))
        .isEqualTo(4);
    assertThat(value(after, "fairway_http_no_server_responses_total", vsl(vipA), "code=\"503\""))
        .isZero();
    assertThat(
            value(
                after,
                "fairway_http_generated_responses_total",
                vsl(vipA),
                rs(closer),
                "code=\"503\""))
        .isZero();
    Promtool.assertClean(after, dir);
    assertThat(fairway.log()).doesNotContain("\tat ");
  }

  String metrics() throws IOException, InterruptedException {
    return get("/metrics").body();
  }

  @Test
  void aConnectionWaitingForAFullServerIsCountedThenItsTimeout() throws Exception {
    // A backend that accepts every connection and holds it, saying nothing.
    int rs = net.backend(accepted::add);
    int vip = UserspaceRunTest.freePort();
    admin = UserspaceRunTest.freePort();
    Path conf = dir.resolve("keepalived.conf");
    Files.writeString(
        conf,
        "virtual_server 127.0.0.1 "
            + vip
            + " {\n    lb_algo rr\n    lb_kind PROXY\n    protocol TCP\n"
            + "    proxy_timeouts {\n        connect 1\n    }\n"
            + "    real_server 127.0.0.1 "
            + rs
            + " {\n        max_conns 1\n    }\n}\n");
    start(conf);
    String idle = metrics();
    assertThat(value(idle, "fairway_virtual_server_queue_waiting", vsl(vip))).isZero();
    assertThat(value(idle, "fairway_virtual_server_queued_total", vsl(vip))).isZero();

    Socket first = new Socket(InetAddress.getLoopbackAddress(), vip);
    held.add(first);
    await().atMost(Duration.ofSeconds(10)).until(() -> accepted.size() == 1);
    Socket second = new Socket(InetAddress.getLoopbackAddress(), vip);
    held.add(second);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> value(metrics(), "fairway_virtual_server_queue_waiting", vsl(vip)) == 1);
    String waiting = metrics();
    assertThat(value(waiting, "fairway_virtual_server_queued_total", vsl(vip))).isEqualTo(1);
    assertThat(value(waiting, "fairway_virtual_server_queue_timeouts_total", vsl(vip))).isZero();
    Promtool.assertClean(waiting, dir);

    second.setSoTimeout(10_000);
    assertThat(second.getInputStream().read()).as("closed after the connect timeout").isEqualTo(-1);
    String after = metrics();
    assertThat(value(after, "fairway_virtual_server_queue_waiting", vsl(vip))).isZero();
    assertThat(value(after, "fairway_virtual_server_queued_total", vsl(vip))).isEqualTo(1);
    assertThat(value(after, "fairway_virtual_server_queue_timeouts_total", vsl(vip))).isEqualTo(1);
    assertThat(value(after, "fairway_virtual_server_queue_full_total", vsl(vip))).isZero();
    assertThat(accepted).as("the backend never saw the waiter").hasSize(1);
    Promtool.assertClean(after, dir);
    assertThat(fairway.log()).doesNotContain("\tat ");
  }

  /**
   * A backend that keeps its first connection and closes every later one the moment it accepts it,
   * unanswered: a server that takes one connection at once.
   */
  int oneAtATimeBackend() throws IOException {
    return net.backend(
        c -> {
          if (accepted.isEmpty()) {
            accepted.add(c);
          } else {
            c.close();
          }
        });
  }

  /** Connects to {@code vip} and says something, as a client with a request would. */
  Socket ask(int vip) throws IOException {
    Socket s = new Socket(InetAddress.getLoopbackAddress(), vip);
    held.add(s);
    s.getOutputStream().write("hello\n".getBytes(StandardCharsets.US_ASCII));
    s.setSoTimeout(10_000);
    return s;
  }

  @Test
  void aServerThatRefusesGetsALearnedLimitThatMetricsAndTheApiShow() throws Exception {
    int rs = oneAtATimeBackend();
    int vip = UserspaceRunTest.freePort();
    admin = UserspaceRunTest.freePort();
    Path conf = dir.resolve("keepalived.conf");
    Files.writeString(
        conf,
        "virtual_server 127.0.0.1 "
            + vip
            + " {\n    lb_algo rr\n    lb_kind PROXY\n    protocol TCP\n"
            + "    proxy_timeouts {\n        connect 2\n    }\n"
            + "    real_server 127.0.0.1 "
            + rs
            + " {\n        weight 1\n    }\n}\n");
    start(conf);
    assertThat(value(metrics(), "fairway_server_learned_limit", rs(rs))).isZero();

    ask(vip);
    await().atMost(Duration.ofSeconds(10)).until(() -> accepted.size() == 1);
    Socket refused = ask(vip);
    assertThat(refused.getInputStream().read()).as("closed unanswered").isEqualTo(-1);
    refused.close();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> value(metrics(), "fairway_server_refusals_total", rs(rs)) == 1);
    String learned = metrics();
    // Two in flight when it refused: 9/10 of that, rounded down.
    assertThat(value(learned, "fairway_server_learned_limit", rs(rs))).isEqualTo(1);
    Promtool.assertClean(learned, dir);
    assertThat(get("/api/v1/services").body()).contains("\"learned_limit\":1");

    ask(vip); // waits for the one slot instead of being thrown away
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> value(metrics(), "fairway_virtual_server_queue_waiting", vsl(vip)) == 1);
    String waiting = metrics();
    assertThat(value(waiting, "fairway_server_limit_hits_total", rs(rs))).isPositive();
    assertThat(value(waiting, "fairway_server_refusals_total", rs(rs))).isEqualTo(1);
    Promtool.assertClean(waiting, dir);
    assertThat(fairway.log()).doesNotContain("\tat ");
  }

  /** The value of {@code name}, a series without labels. */
  static double plain(String scrape, String name) {
    Matcher m =
        Pattern.compile("^" + Pattern.quote(name) + " (\\S+)$", Pattern.MULTILINE).matcher(scrape);
    assertThat(m.find()).as(name + " in\n" + scrape).isTrue();
    return Double.parseDouble(m.group(1));
  }

  /** A frame: the 9-byte header (length, type, flags, stream id), then the payload. */
  static byte[] frame(int type, int flags, int stream, byte... payload) {
    byte[] f = new byte[9 + payload.length];
    f[2] = (byte) payload.length;
    f[3] = (byte) type;
    f[4] = (byte) flags;
    f[8] = (byte) stream;
    System.arraycopy(payload, 0, f, 9, payload.length);
    return f;
  }

  /**
   * Sends the preface, an empty SETTINGS and {@code frames} on a fresh h2c connection; reads to its
   * end.
   */
  static void h2c(int port, byte[]... frames) throws IOException {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 3000);
      s.setSoTimeout(10_000);
      var out = s.getOutputStream();
      out.write("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      out.write(frame(4, 0, 0));
      for (byte[] f : frames) {
        out.write(f);
      }
      out.flush();
      s.getInputStream().readAllBytes(); // until the proxy closes the connection
    }
  }

  @Test
  void http11AndHttp2AreCountedApart() throws Exception {
    int backend = net.answering(LoopbackHttp.OK);
    int vip = UserspaceRunTest.freePort();
    admin = UserspaceRunTest.freePort();
    Path conf = dir.resolve("keepalived.conf");
    Files.writeString(conf, virtualServer(vip, backend, "    alpn h2 http/1.1\n"));
    start(conf);

    assertThat(status(vip)).as("HTTP/1.1").isEqualTo(200);
    HttpResponse<String> h2 =
        HttpClient.newBuilder()
            .proxy(ProxySelector.of(null))
            .version(HttpClient.Version.HTTP_2)
            .build()
            .send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + vip + "/"))
                    .timeout(Duration.ofSeconds(30))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(h2.version()).as("Upgrade: h2c").isEqualTo(HttpClient.Version.HTTP_2);
    assertThat(h2.statusCode()).isEqualTo(200);
    // :method POST, :scheme http, :path / (static table), :authority x (literal).
    byte[] post = {(byte) 0x83, (byte) 0x86, (byte) 0x84, 0x41, 0x01, 'x'};
    byte[] empty = frame(0, 0, 1);
    h2c(vip, frame(1, 4, 1, post), empty, empty, empty); // empty DATA frames: a flood
    h2c(vip, frame(0, 0, 0, (byte) 'x')); // DATA on stream 0: a protocol error

    String vsl = vsl(vip);
    await()
        .atMost(Duration.ofSeconds(20))
        .until(
            () -> plain(get("/metrics").body(), "fairway_http2_streams_per_connection_count") >= 2);
    String m = get("/metrics").body();
    String conns = "fairway_http_client_connections_total";
    assertThat(value(m, conns, vsl, "protocol=\"http/1.1\"")).isEqualTo(1);
    assertThat(value(m, conns, vsl, "protocol=\"h2\"")).isEqualTo(3);
    assertThat(value(m, "fairway_http2_floods_total", "kind=\"empty_frames\"")).isEqualTo(1);
    assertThat(value(m, "fairway_http2_floods_total", "kind=\"rapid_reset\"")).isZero();
    assertThat(plain(m, "fairway_http2_protocol_errors_total")).isEqualTo(1);
    assertThat(plain(m, "fairway_http2_streams_total"))
        .as("the upgraded request, the POST")
        .isEqualTo(2);
    assertThat(value(m, "fairway_http_client_open_connections", vsl, "protocol=\"http/1.1\""))
        .isZero();
    Promtool.assertClean(m, dir);
  }
}
