package io.fairway.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Soft stop of {@code fairway run --userspace}: a slow download in flight through an HTTP and an L4
 * virtual server when SIGTERM arrives completes (curl exits 0, not 18 "transfer closed with
 * outstanding read data remaining"), the listeners stop accepting at once, and the daemon exits 0
 * when the downloads are done; a second SIGTERM stops at once.
 *
 * <p>The download (32 MiB, read by curl at 8 MiB/s) is several times what the loopback socket
 * buffers hold, so it is really in flight in the proxy at the signal.
 */
class UserspaceSoftStopTest {
  private static final int SIZE = 32 << 20;
  @TempDir Path dir;
  HttpServer backend;
  Process fairway;
  final List<Process> curls = new ArrayList<>();
  Path log;
  int httpVip;
  int l4Vip;

  @BeforeEach
  void start() throws Exception {
    io.fairway.testkit.ExternalPrograms.require("curl", "/usr/bin/curl");
    backend = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
    backend.createContext(
        "/",
        ex -> {
          byte[] chunk = new byte[64 * 1024];
          ex.sendResponseHeaders(200, SIZE);
          try (OutputStream os = ex.getResponseBody()) {
            for (int sent = 0; sent < SIZE; sent += chunk.length) {
              os.write(chunk);
            }
          }
        });
    backend.start();
    int b = backend.getAddress().getPort();
    httpVip = UserspaceRunTest.freePort();
    l4Vip = UserspaceRunTest.freePort();
    Path conf = dir.resolve("keepalived.conf");
    Files.writeString(conf, service(httpVip, "HTTP", b) + service(l4Vip, "PROXY", b));
    String cp =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    log = dir.resolve("fairway.log");
    fairway =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                cp,
                "io.fairway.cli.Main",
                "run",
                "--userspace",
                "-f",
                conf.toString(),
                "--admin",
                "off",
                "--grace-period",
                "60")
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    await().atMost(Duration.ofSeconds(60)).until(() -> accepts(httpVip) && accepts(l4Vip));
  }

  @AfterEach
  void stop() throws Exception {
    for (Process c : curls) {
      c.destroyForcibly();
    }
    if (fairway != null && fairway.isAlive()) {
      fairway.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
    if (backend != null) {
      backend.stop(0);
    }
  }

  private static String service(int vip, String kind, int backend) {
    return "virtual_server 127.0.0.1 "
        + vip
        + " {\n    delay_loop 1\n    lb_algo rr\n    lb_kind "
        + kind
        + "\n"
        + "    protocol TCP\n    real_server 127.0.0.1 "
        + backend
        + " {\n        TCP_CHECK {\n"
        + "            connect_timeout 1\n        }\n    }\n}\n";
  }

  private static boolean accepts(int port) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 500);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private Process curl(int port, Path out, String rate) throws IOException {
    Process p =
        new ProcessBuilder(
                "curl",
                "-sS",
                "--limit-rate",
                rate,
                "-o",
                out.toString(),
                "http://127.0.0.1:" + port + "/big")
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve(out.getFileName() + ".curl").toFile())
            .start();
    curls.add(p);
    return p;
  }

  private static long size(Path p) {
    try {
      return Files.exists(p) ? Files.size(p) : 0;
    } catch (IOException e) {
      return 0;
    }
  }

  private void sigterm() throws Exception {
    assertThat(new ProcessBuilder("kill", "-TERM", Long.toString(fairway.pid())).start().waitFor())
        .isZero();
  }

  @Test
  void downloadsInFlightCompleteAcrossSigterm() throws Exception {
    Path viaHttp = dir.resolve("http.out");
    Path viaL4 = dir.resolve("l4.out");
    Process c1 = curl(httpVip, viaHttp, "8M");
    Process c2 = curl(l4Vip, viaL4, "8M");
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> size(viaHttp) > (1 << 20) && size(viaL4) > (1 << 20));
    sigterm();
    // Stops accepting at once, while the downloads go on.
    await().atMost(Duration.ofSeconds(10)).until(() -> !accepts(httpVip) && !accepts(l4Vip));
    assertThat(fairway.isAlive()).isTrue();
    assertThat(c1.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(c2.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(c1.exitValue())
        .as("curl via HTTP: " + Files.readString(dir.resolve("http.out.curl")))
        .isZero();
    assertThat(c2.exitValue())
        .as("curl via L4: " + Files.readString(dir.resolve("l4.out.curl")))
        .isZero();
    assertThat(Files.size(viaHttp)).isEqualTo(SIZE);
    assertThat(Files.size(viaL4)).isEqualTo(SIZE);
    assertThat(fairway.waitFor(30, TimeUnit.SECONDS)).isTrue();
    String text = Files.readString(log);
    assertThat(fairway.exitValue()).as(text).isZero();
    // The two downloads, and any connection the readiness probes left half-closed at the backend.
    assertThat(text)
        .containsPattern("soft stop: [2-9] connection\\(s\\) in flight")
        .contains("soft stop: every connection finished")
        .doesNotContain("\tat ");
  }

  @Test
  void aSecondSigtermStopsAtOnce() throws Exception {
    Path viaHttp = dir.resolve("http.out");
    Process c = curl(httpVip, viaHttp, "1M"); // 32 s at this rate
    await().atMost(Duration.ofSeconds(20)).until(() -> size(viaHttp) > (256 << 10));
    sigterm();
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(Files.readString(log))
                    .containsPattern("soft stop: \\d+ connection\\(s\\) in flight"));
    sigterm();
    assertThat(fairway.waitFor(15, TimeUnit.SECONDS)).isTrue();
    assertThat(fairway.exitValue()).isZero();
    assertThat(Files.readString(log)).contains("soft stop: second signal");
    assertThat(c.waitFor(15, TimeUnit.SECONDS)).isTrue();
    assertThat(c.exitValue()).as("the download was cut").isNotZero();
    assertThat(size(viaHttp)).isLessThan(SIZE);
  }
}
