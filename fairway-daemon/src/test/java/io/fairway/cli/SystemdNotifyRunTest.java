package io.fairway.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fairway.daemon.systemd.NotifySocket;
import io.fairway.testkit.FairwayProcess;
import io.fairway.testkit.HttpBackend;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code fairway run --userspace} under a stand-in for systemd: a datagram socket in the abstract
 * namespace named by NOTIFY_SOCKET. READY=1 comes only once the table is applied (the virtual
 * server answers at the moment the message arrives), RELOADING=1 then READY=1 around a SIGHUP,
 * STOPPING=1 at SIGTERM.
 */
class SystemdNotifyRunTest {
  @TempDir Path dir;

  // Started by each test that needs it, before any use; closed after each when started.
  @SuppressWarnings("NullAway.Init")
  HttpBackend backend;

  @SuppressWarnings("NullAway.Init")
  FairwayProcess fairway;

  @AfterEach
  void cleanUp() throws Exception {
    if (fairway != null) {
      fairway.close();
    }
    if (backend != null) {
      backend.close();
    }
  }

  @Test
  void readyAfterTheTableIsAppliedReloadingAroundSighupStoppingAtSigterm() throws Exception {
    backend = new HttpBackend("b1");
    int vip = UserspaceRunTest.freePort();
    Path conf = dir.resolve("keepalived.conf");
    Files.writeString(conf, UserspaceRunTest.conf(vip, backend.port()));

    // What the virtual server answered at the moment each message arrived (before the next one
    // is read): "b1" once traffic flows, "" before.
    Map<String, String> servedWhen = new ConcurrentHashMap<>();
    String name = "@pkg-notify-run-" + ProcessHandle.current().pid();
    try (NotifySocket systemd =
        new NotifySocket(
            name,
            m -> servedWhen.put(m.lines().findFirst().orElse(""), UserspaceRunTest.get(vip)))) {
      fairway =
          FairwayProcess.fromTestClasspath()
              .env("NOTIFY_SOCKET", name)
              .log(dir.resolve("fairway.log"))
              .start("run", "--userspace", "-f", conf.toString(), "--admin", "off");

      await().atMost(Duration.ofSeconds(60)).until(() -> has(systemd, "READY=1"));
      List<String> start = systemd.messages();
      assertThat(start.get(0)).as(fairway.log()).startsWith("STATUS=applying " + conf);
      assertThat(start)
          .last()
          .asString()
          .isEqualTo("READY=1\nSTATUS=running " + conf + " (1 virtual servers)");
      assertThat(servedWhen.get("STATUS=applying " + conf)).isEmpty();
      assertThat(servedWhen.get("READY=1")).isEqualTo("b1");

      fairway.signal("HUP");
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> systemd.messages().size() >= start.size() + 2);
      List<String> reload = systemd.messages().subList(start.size(), start.size() + 2);
      assertThat(reload.get(0))
          .matches("RELOADING=1\nMONOTONIC_USEC=\\d+\nSTATUS=reloading " + conf);
      assertThat(reload.get(1))
          .isEqualTo("READY=1\nSTATUS=running " + conf + " (reload 1 applied)");

      Files.writeString(conf, "virtual_server 127.0.0.1 " + vip + " {\n    lb_algo nosuch\n");
      fairway.signal("HUP");
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> systemd.messages().size() >= start.size() + 4);
      assertThat(systemd.messages().get(start.size() + 3))
          .startsWith("READY=1\nSTATUS=reload refused, still running the previous configuration: ")
          .contains("keepalived.conf:");

      assertThat(fairway.stop(Duration.ofSeconds(30))).as(fairway.log()).isZero();
      assertThat(systemd.messages()).last().asString().startsWith("STOPPING=1\nSTATUS=stopping");
    }
  }

  private static boolean has(NotifySocket s, String first) {
    return s.messages().stream().anyMatch(m -> m.startsWith(first));
  }
}
