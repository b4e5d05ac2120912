package io.fairway.testkit;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.awaitility.core.ConditionTimeoutException;

/**
 * A real varnishd on loopback running a test's VCL: the oracle the directors and the data plane are
 * compared with. The oracle tests ask it what its directors chose; a VCL that answers in {@code
 * vcl_recv} with a synthetic response (see {@link #synthAnswers}) costs no backend fetch per
 * question.
 *
 * <p>One launcher, so that every oracle starts varnishd the same way: in the foreground, its work
 * directory, VCL, admin secret and log in the test's directory, its client and admin ports from
 * {@link FreePorts}, small enough to share the machine. Closing it stops varnishd.
 *
 * <pre>{@code
 * Path bin = Varnishd.require(); // before the test starts anything else
 * try (Varnishd v = Varnishd.start(bin, dir, vcl, Map.of("x-mode", "ping"))) {
 *   assertThat(v.ask(Map.of("k0", "key")).headers().firstValue("r0")).hasValue("b1");
 * }
 * }</pre>
 */
public final class Varnishd implements AutoCloseable {
  private static final Duration START = Duration.ofSeconds(60);

  private final Process process;
  private final Path dir;
  private final int port;
  private final int adminPort;
  private final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(2))
          .build();

  private Varnishd(Process process, Path dir, int port, int adminPort) {
    this.process = process;
    this.dir = dir;
    this.port = port;
    this.adminPort = adminPort;
  }

  /**
   * The path of varnishd (Debian package varnish); without it the calling test is skipped, or
   * failed under {@code CI=true} ({@link ExternalPrograms}). A test calls it before it starts
   * anything else, so a skip leaves nothing running.
   */
  public static Path require() {
    return ExternalPrograms.require("varnishd", "/usr/sbin/varnishd", "/usr/local/sbin/varnishd");
  }

  /**
   * Starts {@code bin} on {@code vcl} in {@code dir} and waits until a {@code GET /} with the
   * headers {@code ping} answers 200: the VCL compiled, loaded and serves.
   *
   * @throws IllegalStateException varnishd exited, or did not answer within a minute (it is stopped
   *     then); the message carries its log
   */
  public static Varnishd start(Path bin, Path dir, String vcl, Map<String, String> ping)
      throws IOException {
    Path vclFile = Files.writeString(dir.resolve("varnishd.vcl"), vcl);
    Files.writeString(secretIn(dir), "fairway-varnishd-secret\n");
    int port = FreePorts.loopback();
    int admin = FreePorts.loopback();
    List<String> cmd =
        new ArrayList<>(
            List.of(
                bin.toString(),
                "-F",
                "-n",
                dir.resolve("work").toString(),
                "-a",
                "127.0.0.1:" + port,
                "-T",
                "127.0.0.1:" + admin,
                "-S",
                secretIn(dir).toString(),
                "-f",
                vclFile.toString(),
                "-s",
                "malloc,16m",
                "-p",
                "thread_pools=1",
                "-p",
                "thread_pool_min=5"));
    // As root varnishd wants to drop privileges to its own users; none is simpler in a test.
    if ("root".equals(System.getProperty("user.name"))) {
      cmd.addAll(1, List.of("-j", "none"));
    }
    Process process =
        new ProcessBuilder(cmd)
            .redirectErrorStream(true)
            .redirectOutput(logIn(dir).toFile())
            .start();
    Varnishd varnishd = new Varnishd(process, dir, port, admin);
    varnishd.awaitAnswer(ping);
    return varnishd;
  }

  private void awaitAnswer(Map<String, String> ping) {
    try {
      await("varnishd answers")
          .atMost(START)
          .pollInterval(Duration.ofMillis(100))
          .ignoreExceptionsInstanceOf(IOException.class)
          .until(
              () -> {
                if (!process.isAlive()) {
                  throw new IllegalStateException("varnishd exited; its log:\n" + log());
                }
                return ask(ping).statusCode() == 200;
              });
    } catch (ConditionTimeoutException e) {
      close();
      throw new IllegalStateException(
          "varnishd did not answer within " + START + "; its log:\n" + log(), e);
    }
  }

  /**
   * VCL: a {@code vcl_synth} that sends the request headers {@code r0} to {@code r<n-1>}, where
   * {@code vcl_recv} wrote its directors' choices, back as response headers.
   */
  public static String synthAnswers(int n) {
    StringBuilder v = new StringBuilder("sub vcl_synth {\n");
    for (int k = 0; k < n; k++) {
      v.append("  set resp.http.r").append(k).append(" = req.http.r").append(k).append(";\n");
    }
    v.append("  return (deliver);\n}\n");
    return v.toString();
  }

  /** The client port, on 127.0.0.1. */
  public int port() {
    return port;
  }

  /** The admin (CLI) port, on 127.0.0.1, for {@code varnishadm -T}. */
  public int adminPort() {
    return adminPort;
  }

  /** The admin secret file, for {@code varnishadm -S}. */
  public Path secret() {
    return secretIn(dir);
  }

  /** A {@code GET /} with these headers; the answer's headers carry what the VCL wrote there. */
  public HttpResponse<String> ask(Map<String, String> headers)
      throws IOException, InterruptedException {
    return http.send(request(headers), HttpResponse.BodyHandlers.ofString());
  }

  /** {@link #ask} without waiting, for tests that keep several questions in flight. */
  public CompletableFuture<HttpResponse<String>> askAsync(Map<String, String> headers) {
    return http.sendAsync(request(headers), HttpResponse.BodyHandlers.ofString());
  }

  private HttpRequest request(Map<String, String> headers) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/"))
            .timeout(Duration.ofSeconds(10));
    headers.forEach(b::header);
    return b.GET().build();
  }

  /**
   * {@code varnishadm COMMAND...} against this varnishd, started and not waited for; its output and
   * errors are on its standard output. One command per process: fed several on stdin, varnishadm
   * may exit at end of input before it has sent them all.
   */
  public Process varnishadm(String... command) throws IOException {
    List<String> cmd =
        new ArrayList<>(
            List.of("varnishadm", "-T", "127.0.0.1:" + adminPort, "-S", secret().toString()));
    cmd.addAll(List.of(command));
    return new ProcessBuilder(cmd).redirectErrorStream(true).start();
  }

  /** What varnishd wrote so far (stdout and stderr), for failure messages. */
  public String log() {
    try {
      return Files.readString(logIn(dir));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Path secretIn(Path dir) {
    return dir.resolve("varnishd.secret");
  }

  private static Path logIn(Path dir) {
    return dir.resolve("varnishd.log");
  }

  /**
   * Stops varnishd: SIGTERM, then SIGKILL if it has not exited within 10 s. An interrupt while
   * waiting leaves the thread interrupted rather than escaping close.
   */
  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
