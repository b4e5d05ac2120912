package io.fairway.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import io.fairway.testkit.FairwayProcess;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The package as installed: unpacked with {@code dpkg-deb -x} into a throwaway root, the
 * installed {@code /usr/bin/fairway} (on this machine's Java runtime) checks the shipped sample
 * configuration and runs {@code --userspace} in front of a real HTTP backend on loopback.
 */
class InstalledFairwayIT {
  @TempDir Path dir;
  HttpServer backend;
  FairwayProcess fairway;

  @AfterEach
  void cleanUp() throws Exception {
    if (fairway != null) {
      fairway.close();
    }
    if (backend != null) {
      backend.stop(0);
    }
  }

  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  @Test
  void theInstalledCommandChecksTheSampleAndServesOnTheUserspaceProxy() throws Exception {
    Deb.require("java");
    Path root = Deb.unpack(dir.resolve("root"));
    Path fw = root.resolve("usr/bin/fairway");

    Deb.Run check = Deb.run(fw.toString(), "check-config", "-f",
        root.resolve("etc/fairway/keepalived.conf").toString());
    assertThat(check.code()).as(check.output()).isZero();

    backend = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
    backend.createContext("/", ex -> {
      byte[] body = "from the backend".getBytes(StandardCharsets.UTF_8);
      ex.sendResponseHeaders(200, body.length);
      ex.getResponseBody().write(body);
      ex.close();
    });
    backend.start();
    int vip = freePort();
    Path conf = dir.resolve("keepalived.conf");
    Files.writeString(conf, "virtual_server 127.0.0.1 " + vip + " {\n    delay_loop 1\n"
        + "    lb_algo rr\n    lb_kind PROXY\n    protocol TCP\n"
        + "    real_server 127.0.0.1 " + backend.getAddress().getPort() + " {\n"
        + "        TCP_CHECK {\n            connect_timeout 1\n        }\n    }\n}\n");
    Path runtime = Files.createDirectory(dir.resolve("run"));
    fairway = FairwayProcess.installed(fw)
        .env("RUNTIME_DIRECTORY", runtime.toString()) // what the unit gives it
        .log(dir.resolve("fairway.log"))
        .start("run", "--userspace", "-f", conf.toString(), "--admin", "off",
            // The HTTP client keeps its connection: the soft stop would wait the default 30 s for it.
            "--grace-period", "2");

    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    HttpRequest get = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + vip + "/"))
        .timeout(Duration.ofSeconds(3)).build();
    await().atMost(Duration.ofSeconds(60)).ignoreExceptions()
        .until(() -> http.send(get, HttpResponse.BodyHandlers.ofString()).body().equals("from the backend"));

    assertThat(fairway.stop(Duration.ofSeconds(30))).as(fairway.log()).isZero();
    assertThat(fairway.log()).contains("Daemon: running " + conf).doesNotContain("\tat ");
  }
}
