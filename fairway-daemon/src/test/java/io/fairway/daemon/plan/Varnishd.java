package io.fairway.daemon.plan;

import static org.awaitility.Awaitility.await;

import io.fairway.testkit.ExternalPrograms;
import java.io.IOException;
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

/**
 * A real varnishd on loopback running a test's VCL: the oracle the data plane is compared with. Its
 * VCL answers in {@code vcl_recv} with a synthetic response whose headers carry what its directors
 * chose, so a question costs no backend fetch. The oracle tests share it, and the VCL parts every
 * such VCL needs (the probe, ping and health answers, the synthetic response), so that they start
 * and read varnishd the same way.
 */
final class Varnishd implements AutoCloseable {
  private final Process process;
  private final Path log;
  final int port;
  private final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(2))
          .build();

  /**
   * The VCL probe the oracles give their checked backends: {@code /health} every 0.2 s. A 503 (a
   * sick backend) never passes; a healthy backend turns sick only after three probes in a row
   * failed, each with 2 s to answer, so a loaded machine (the backends are this JVM's threads) does
   * not flip it in the middle of a comparison: at load 25, single probes and checks of 1 s did, and
   * the two sides disagreed for a moment on a hashing director's healthy set.
   */
  static final String PROBE =
      "probe health { .url = \"/health\"; .interval = 0.2s; .timeout = 2s; .window = 3;"
          + " .threshold = 1; .initial = 0; }\n";

  /**
   * Fairway's checker for the same backends, as robust as {@link #PROBE}: a 503 is down after the
   * first check and its two retries (about 2 s), a healthy server only after three attempts in a
   * row got no answer within 3 s.
   */
  static final String HTTP_GET =
      "    HTTP_GET {\n      url {\n        path /health\n        status_code 200\n"
          + "      }\n      connect_timeout 3\n      retry 2\n      delay_before_retry 1\n    }\n";

  /**
   * The path of varnishd; without it the calling test is skipped, or failed under {@code CI=true}.
   * Called before anything else is started for the test.
   */
  static String require() {
    String bin = null;
    for (String p : List.of("/usr/sbin/varnishd", "/usr/local/sbin/varnishd")) {
      if (bin == null && Files.isExecutable(Path.of(p))) {
        bin = p;
      }
    }
    ExternalPrograms.requireThat(
        bin != null, () -> "varnishd is not installed (Debian package varnish)");
    return bin;
  }

  /**
   * VCL for the top of {@code vcl_recv}: {@code x-mode: ping} answers 200 (what start-up waits
   * for), {@code x-mode: health} answers with header {@code r0}, {@code std.healthy()} of each of
   * {@code probed} followed by a comma (read by {@link #health}).
   */
  static String recvPingAndHealth(List<String> probed) {
    StringBuilder v = new StringBuilder();
    v.append("  if (req.http.x-mode == \"ping\") {\n    return (synth(200));\n  }\n");
    v.append("  if (req.http.x-mode == \"health\") {\n    set req.http.r0 = \"\"");
    for (String b : probed) {
      v.append(" + std.healthy(").append(b).append(") + \",\"");
    }
    v.append(";\n    return (synth(200));\n  }\n");
    return v.toString();
  }

  /**
   * VCL: a {@code vcl_synth} that sends the request headers {@code r0} to {@code r<n-1>}, where
   * {@code vcl_recv} wrote its directors' choices, back as response headers.
   */
  static String synthAnswers(int n) {
    StringBuilder v = new StringBuilder("sub vcl_synth {\n");
    for (int k = 0; k < n; k++) {
      v.append("  set resp.http.r").append(k).append(" = req.http.r").append(k).append(";\n");
    }
    v.append("  return (deliver);\n}\n");
    return v.toString();
  }

  /** Starts varnishd from {@link #require}'s {@code bin} on {@code vcl} and waits for it. */
  Varnishd(String bin, Path dir, String vcl) throws Exception {
    Files.writeString(dir.resolve("oracle.vcl"), vcl);
    Files.writeString(dir.resolve("secret"), "fairway-plan-secret\n");
    port = freePort();
    int admin = freePort();
    log = dir.resolve("varnishd.log");
    List<String> cmd =
        new ArrayList<>(
            List.of(
                bin,
                "-F",
                "-n",
                dir.resolve("work").toString(),
                "-a",
                "127.0.0.1:" + port,
                "-T",
                "127.0.0.1:" + admin,
                "-S",
                dir.resolve("secret").toString(),
                "-f",
                dir.resolve("oracle.vcl").toString(),
                "-s",
                "malloc,16m",
                "-p",
                "thread_pools=1",
                "-p",
                "thread_pool_min=5"));
    if ("root".equals(System.getProperty("user.name"))) {
      cmd.addAll(1, List.of("-j", "none"));
    }
    process =
        new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    await("varnishd answers")
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(100))
        .ignoreExceptionsInstanceOf(IOException.class)
        .until(
            () -> {
              if (!process.isAlive()) {
                throw new IllegalStateException("varnishd exited: " + Files.readString(log));
              }
              return ask(Map.of("x-mode", "ping")).statusCode() == 200;
            });
  }

  /** A request with these headers; the answer's headers carry varnishd's choices. */
  HttpResponse<String> ask(Map<String, String> headers) throws IOException, InterruptedException {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/"))
            .timeout(Duration.ofSeconds(10));
    headers.forEach(b::header);
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  /**
   * What its probes say of each backend {@link #recvPingAndHealth} listed, in that order (true:
   * healthy).
   */
  List<Boolean> health() throws IOException, InterruptedException {
    String r0 = ask(Map.of("x-mode", "health")).headers().firstValue("r0").orElse("");
    List<Boolean> out = new ArrayList<>();
    for (String h : r0.split(",")) {
      if (!h.isEmpty()) {
        out.add(Boolean.parseBoolean(h));
      }
    }
    return out;
  }

  static int freePort() throws IOException {
    return io.fairway.testkit.FreePorts.loopback();
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // the caller's to see; the process is not waited for
    }
  }
}
