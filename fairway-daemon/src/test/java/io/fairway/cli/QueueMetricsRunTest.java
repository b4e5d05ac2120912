package io.fairway.cli;

import static io.fairway.cli.ProxyErrorMetricsRunTest.value;
import static io.fairway.cli.ProxyErrorMetricsRunTest.vsl;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fairway.daemon.Promtool;
import io.fairway.testkit.FairwayProcess;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ProxySelector;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real server at its {@code max_conns} through a running {@code fairway run --userspace}: the
 * next connection waits in the service's queue and {@code /metrics} says so, then says that it
 * timed out once the connect timeout passed and the proxy closed it. promtool checks the scrape.
 */
class QueueMetricsRunTest {
  @TempDir Path dir;

  /** What the backend accepted. */
  final List<Socket> accepted = new CopyOnWriteArrayList<>();

  final List<Socket> clients = new CopyOnWriteArrayList<>();
  final HttpClient http =
      HttpClient.newBuilder()
          .proxy(ProxySelector.of(null))
          .connectTimeout(Duration.ofSeconds(2))
          .build();
  ServerSocket backend;
  FairwayProcess fairway;
  int admin;

  @AfterEach
  void cleanUp() throws Exception {
    if (fairway != null) {
      fairway.close();
    }
    for (Socket s : clients) {
      s.close();
    }
    for (Socket s : accepted) {
      s.close();
    }
    if (backend != null) {
      backend.close();
    }
  }

  /** A backend that accepts every connection and holds it, saying nothing. */
  int holdingBackend() throws IOException {
    backend = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread t =
        new Thread(
            () -> {
              while (!backend.isClosed()) {
                try {
                  accepted.add(backend.accept());
                } catch (IOException e) {
                  return;
                }
              }
            },
            "holding-backend");
    t.setDaemon(true);
    t.start();
    return backend.getLocalPort();
  }

  String metrics() throws IOException, InterruptedException {
    return http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + admin + "/metrics"))
                .timeout(Duration.ofSeconds(30))
                .build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
  }

  @Test
  void aConnectionWaitingForAFullServerIsCountedThenItsTimeout() throws Exception {
    int rs = holdingBackend();
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
    fairway =
        FairwayProcess.fromTestClasspath()
            .env("FAIRWAY_RUNTIME_DIR", dir.resolve("run").toString())
            .log(dir.resolve("fairway.log"))
            .start("run", "--userspace", "-f", conf.toString(), "--admin", "127.0.0.1:" + admin);
    await()
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .until(() -> metrics().contains("fairway_virtual_server_queue_waiting{"));
    String idle = metrics();
    assertThat(value(idle, "fairway_virtual_server_queue_waiting", vsl(vip))).isZero();
    assertThat(value(idle, "fairway_virtual_server_queued_total", vsl(vip))).isZero();

    Socket first = new Socket(InetAddress.getLoopbackAddress(), vip);
    clients.add(first);
    await().atMost(Duration.ofSeconds(10)).until(() -> accepted.size() == 1);
    Socket second = new Socket(InetAddress.getLoopbackAddress(), vip);
    clients.add(second);
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
}
