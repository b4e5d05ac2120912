package io.fairway.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import io.fairway.check.checker.CheckResult;
import io.fairway.check.checker.Checker;
import io.fairway.check.config.CheckSpecs;
import io.fairway.check.engine.CheckEngine;
import io.fairway.check.engine.ManualClock;
import io.fairway.daemon.Daemon;
import io.fairway.daemon.KeepalivedLoader;
import io.fairway.proxy.ProxyOptions;
import io.fairway.proxy.plane.ProxyTable;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A reload that only changes a virtual server's {@code proxy_timeouts} reaches the running
 * listener: no table operation carries it; the plan does.
 */
class ReloadProxyTimeoutsTest {
  @TempDir Path dir;

  // Started by each test that needs it, before any use; closed after each when started.
  @SuppressWarnings("NullAway.Init")
  HttpServer backend;

  @SuppressWarnings("NullAway.Init")
  Daemon daemon;

  @SuppressWarnings("NullAway.Init")
  ProxyTable table;

  @AfterEach
  void stop() throws Exception {
    if (daemon != null) {
      daemon.stop();
    }
    if (table != null) {
      table.close();
    }
    if (backend != null) {
      backend.stop(0);
    }
  }

  static String conf(int vip, int backend, String timeouts) {
    return "virtual_server 127.0.0.1 "
        + vip
        + " {\n    lb_algo rr\n    lb_kind HTTP\n    protocol TCP\n"
        + timeouts
        + "    real_server 127.0.0.1 "
        + backend
        + " {\n        TCP_CHECK {\n            connect_timeout 1\n"
        + "        }\n    }\n}\n";
  }

  /**
   * After one answered request, whether the proxy closes the idle keep-alive connection by {@code
   * within}.
   */
  static void closedWhenIdle(int vip, Duration within) throws Exception {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), vip), 2000);
      s.setSoTimeout(30_000);
      s.getOutputStream()
          .write("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
      String head = "";
      while (!head.endsWith("ok")) {
        head += (char) s.getInputStream().read();
      }
      await().atMost(within).until(() -> s.getInputStream().read() == -1);
    }
  }

  @Test
  void aTimeoutOnlyReloadReachesTheListener() throws Exception {
    backend = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
    backend.createContext(
        "/",
        ex -> {
          ex.sendResponseHeaders(200, 2);
          ex.getResponseBody().write("ok".getBytes(StandardCharsets.US_ASCII));
          ex.close();
        });
    backend.start();
    int vip = UserspaceRunTest.freePort();
    int b = backend.getAddress().getPort();
    Path file = dir.resolve("keepalived.conf");
    Files.writeString(file, conf(vip, b, ""));
    table = new ProxyTable(ProxyOptions.builder().ioThreads(1).build(), null);
    daemon =
        new Daemon(
            file,
            new KeepalivedLoader(true, CheckSpecs::from),
            table,
            () ->
                CheckEngine.builder()
                    .scheduler(new ManualClock())
                    .checkerFactory((v, r, spec) -> up()),
            Duration.ZERO,
            Clock.systemUTC());
    daemon.start();
    Duration keepAlive = Duration.ofMillis(300);
    Files.writeString(file, conf(vip, b, "    proxy_timeouts {\n        keepalive 0.3\n    }\n"));
    assertThat(daemon.reload()).isNull();
    // Default keep-alive idle is 15 s; the reloaded one is 0.3 s (plus the ticker's quarter and a
    // margin).
    closedWhenIdle(vip, keepAlive.plus(keepAlive.dividedBy(4)).plusSeconds(2));
  }

  static Checker up() {
    return new Checker() {
      @Override
      public void check(Consumer<CheckResult> done) {
        done.accept(CheckResult.ok("connected"));
      }

      @Override
      public Duration deadline() {
        return Duration.ofSeconds(1);
      }
    };
  }
}
