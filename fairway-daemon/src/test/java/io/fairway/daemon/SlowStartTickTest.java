package io.fairway.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fairway.check.config.CheckSpecs;
import io.fairway.check.engine.CheckEngine;
import io.fairway.proxy.ProxyOptions;
import io.fairway.proxy.plane.ProxyTable;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The daemon runs its slow start step only while a ramp is active: from the moment one starts (an
 * alpha server's first up verdict after start) until the ramp's time is up, then no longer. Real
 * TCP checks against a loopback listener, a real userspace table.
 */
class SlowStartTickTest {
  @TempDir Path dir;

  @Test
  void theStepRunsOnlyWhileARampRuns() throws Exception {
    try (ServerSocket backend = new ServerSocket(0, 16, InetAddress.getLoopbackAddress())) {
      Path conf = dir.resolve("keepalived.conf");
      Files.writeString(
          conf,
          """
          virtual_server 127.0.0.1 %d {
              delay_loop 1
              lb_algo rr
              lb_kind PROXY
              protocol TCP
              alpha
              slow_start 2
              real_server 127.0.0.1 %d {
                  TCP_CHECK {
                      connect_timeout 1
                  }
              }
          }
          """
              .formatted(DaemonThreadsTest.freePort(), backend.getLocalPort()));
      ProxyTable table = new ProxyTable(ProxyOptions.builder().ioThreads(1).build(), k -> null);
      Daemon daemon =
          new Daemon(
              conf,
              new KeepalivedLoader(true, CheckSpecs::from),
              table,
              CheckEngine::builder,
              Duration.ZERO,
              Clock.systemUTC());
      try {
        daemon.start();
        // alpha: the server starts down, so its first up verdict comes after start and ramps.
        await()
            .atMost(Duration.ofSeconds(20))
            .pollInterval(Duration.ofMillis(20))
            .until(daemon::slowStartTicking);
        assertThat(daemon.status()).contains("slow start:");
        await().atMost(Duration.ofSeconds(20)).until(() -> !daemon.slowStartTicking());
        assertThat(daemon.applier().rampsActive()).isFalse();
        assertThat(daemon.status()).doesNotContain("slow start:");
      } finally {
        daemon.stop();
        table.close();
      }
    }
  }
}
