package io.fairway.daemon.plan;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
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
 * chose, so a question costs no backend fetch.
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

  static String binary() {
    for (String p : List.of("/usr/sbin/varnishd", "/usr/local/sbin/varnishd")) {
      if (Files.isExecutable(Path.of(p))) {
        return p;
      }
    }
    return null;
  }

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

  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  @Override
  public void close() throws Exception {
    process.destroy();
    if (!process.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) {
      process.destroyForcibly();
    }
  }
}
