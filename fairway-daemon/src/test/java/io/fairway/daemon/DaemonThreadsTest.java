package io.fairway.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fairway.check.config.CheckSpecs;
import io.fairway.check.engine.CheckEngine;
import io.fairway.daemon.admin.AdminServer;
import io.fairway.proxy.ProxyOptions;
import io.fairway.proxy.plane.ProxyTable;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Stopping the daemon stops every thread it started: the check engine's event loop and script pool,
 * the drift repairer, the admin server, and (closed after it, as {@code fairway run} does) the
 * userspace proxy's event loops. Real checks against a loopback listener, a real proxy table.
 */
class DaemonThreadsTest {
  @TempDir Path dir;

  @Test
  void stopEndsEveryThreadTheDaemonStarted() throws Exception {
    try (ServerSocket backend = new ServerSocket(0, 16, InetAddress.getLoopbackAddress())) {
      int vip = freePort();
      Path conf = dir.resolve("keepalived.conf");
      Files.writeString(
          conf,
          """
          virtual_server 127.0.0.1 %d {
              delay_loop 1
              lb_algo rr
              lb_kind PROXY
              protocol TCP
              real_server 127.0.0.1 %d {
                  TCP_CHECK {
                      connect_timeout 1
                  }
              }
          }
          """
              .formatted(vip, backend.getLocalPort()));
      Set<Thread> before = ThreadLeaks.snapshot();

      ProxyTable table = new ProxyTable(ProxyOptions.builder().ioThreads(1).build(), k -> null);
      Daemon daemon =
          new Daemon(
              conf,
              new KeepalivedLoader(true, CheckSpecs::from),
              table,
              CheckEngine::builder,
              Duration.ofMillis(200),
              Clock.systemUTC());
      AdminServer admin = null;
      try {
        daemon.start();
        admin =
            AdminServer.start(
                new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), daemon::status);
        await()
            .atMost(Duration.ofSeconds(20))
            .until(() -> daemon.status().contains("127.0.0.1:" + backend.getLocalPort()));
        assertThat(ThreadLeaks.startedSince(before))
            .as("the daemon runs threads of its own")
            .isNotEmpty();
      } finally {
        // fairway run's order at SIGTERM
        if (admin != null) {
          admin.close();
        }
        daemon.stop();
        table.close();
      }

      ThreadLeaks.assertAllEnded(before, Duration.ofSeconds(10));
    }
  }

  static int freePort() throws java.io.IOException {
    return io.fairway.testkit.FreePorts.loopback();
  }
}
