package io.fairway.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fairway.testkit.FairwayProcess;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code lvs_sync_daemon} with {@code fairway run --userspace} (a process on loopback, no root):
 * the kernel's connection sync does not apply to the proxy, which says so once, names the line,
 * starts nothing and runs the virtual servers; status says it is not started. A reload that adds it
 * says so once as well, and one that removes it takes it out of the status.
 */
class SyncUserspaceRunTest {
  @TempDir Path dir;

  // Started by each test that needs it, before any use; closed after each when started.
  @SuppressWarnings("NullAway.Init")
  FairwayProcess fairway;

  @AfterEach
  void cleanUp() throws Exception {
    if (fairway != null) {
      fairway.close();
    }
  }

  static int freePort() throws Exception {
    return io.fairway.testkit.FreePorts.loopback();
  }

  @Test
  void theUserspacePlaneSaysTheSyncDaemonDoesNotApply() throws Exception {
    int vip = freePort();
    int admin = freePort();
    Path conf = dir.resolve("keepalived.conf");
    Files.writeString(
        conf,
        "global_defs {\n    lvs_sync_daemon lo\n}\n"
            + "virtual_server 127.0.0.1 "
            + vip
            + " {\n    lb_algo rr\n    lb_kind PROXY\n"
            + "    protocol TCP\n    real_server 127.0.0.1 "
            + freePort()
            + " {\n        weight 1\n"
            + "    }\n}\n");
    fairway =
        FairwayProcess.fromTestClasspath()
            .log(dir.resolve("fairway.log"))
            .start("run", "--userspace", "-f", conf.toString(), "--admin", "127.0.0.1:" + admin);
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    try {
      await()
          .atMost(Duration.ofSeconds(60))
          .until(
              () -> {
                out.getBuffer().setLength(0);
                err.getBuffer().setLength(0);
                if (!fairway.alive()) {
                  throw new AssertionError("fairway exited: " + fairway.log());
                }
                return Main.execute(
                        new String[] {"status", "--admin", "127.0.0.1:" + admin},
                        new PrintWriter(out, true),
                        new PrintWriter(err, true))
                    == 0;
              });
    } catch (org.awaitility.core.ConditionTimeoutException e) {
      // Once seen (2026-12-02, load 20-30): what status said, and fairway's own account.
      throw new AssertionError(
          "status did not answer within 60 s; it said: "
              + err
              + "\nfairway's log:\n"
              + fairway.log(),
          e);
    }
    assertThat(out.toString())
        .contains("127.0.0.1:" + vip)
        .contains(
            "IPVS sync daemon: not started (the userspace data plane has no IPVS "
                + "connections)");
    assertThat(fairway.stop(Duration.ofSeconds(60))).as(fairway.log()).isZero();
    assertThat(fairway.log().lines().filter(l -> l.contains("lvs_sync_daemon")))
        .singleElement(org.assertj.core.api.InstanceOfAssertFactories.STRING)
        .contains(
            conf
                + ":2: lvs_sync_daemon does not apply to the userspace data plane "
                + "(--userspace): its connections live in the proxy and are not synchronised; no "
                + "sync daemon started");
  }

  static String run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = Main.execute(args, new PrintWriter(out, true), new PrintWriter(err, true));
    return code + ":" + out + err;
  }

  @Test
  void aReloadThatAddsItSaysSoOnceAndOneThatRemovesItTakesItOutOfStatus() throws Exception {
    int admin = freePort();
    String server =
        "virtual_server 127.0.0.1 "
            + freePort()
            + " {\n    lb_algo rr\n    lb_kind PROXY\n"
            + "    protocol TCP\n    real_server 127.0.0.1 "
            + freePort()
            + " {\n        weight 1\n    }\n}\n";
    String sync = "global_defs {\n    lvs_sync_daemon lo\n}\n";
    Path conf = dir.resolve("keepalived.conf");
    Files.writeString(conf, server);
    fairway =
        FairwayProcess.fromTestClasspath()
            .log(dir.resolve("fairway.log"))
            .start("run", "--userspace", "-f", conf.toString(), "--admin", "127.0.0.1:" + admin);
    String a = "127.0.0.1:" + admin;
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> run("status", "--admin", a).startsWith("0:"));
    assertThat(run("status", "--admin", a)).doesNotContain("IPVS sync daemon");
    Files.writeString(conf, sync + server);
    assertThat(run("reload", "--admin", a)).startsWith("0:");
    assertThat(run("status", "--admin", a))
        .contains(
            "IPVS sync daemon: not started (the userspace data plane has no IPVS connections)");
    assertThat(run("status", "--vrrp", "--admin", a)).contains("\"active\":false");
    // The same keyword on another line: not said again.
    Files.writeString(conf, "\n" + sync + server);
    assertThat(run("reload", "--admin", a)).startsWith("0:");
    Files.writeString(conf, server);
    assertThat(run("reload", "--admin", a)).startsWith("0:");
    assertThat(run("status", "--admin", a)).doesNotContain("IPVS sync daemon");
    assertThat(run("status", "--vrrp", "--admin", a)).contains("\"lvs_sync_daemon\":null");
    assertThat(fairway.stop(Duration.ofSeconds(60))).as(fairway.log()).isZero();
    assertThat(fairway.log().lines().filter(l -> l.contains("does not apply")))
        .singleElement(org.assertj.core.api.InstanceOfAssertFactories.STRING)
        .contains(conf + ":2: lvs_sync_daemon does not apply to the userspace data plane");
  }
}
