package io.fairway.daemon.uml;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fairway.testkit.ExternalPrograms;
import io.fairway.testkit.uml.Uml;
import java.io.InputStream;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Properties;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Connection sync on the real kernel (issue 15): two user-mode Linux kernels, directors A and B,
 * joined by a {@code uml_switch} over a Unix socket (no host IP traffic), each running IPVS and
 * {@code fairway run} with VRRP and {@code lvs_sync_daemon}. A client behind B's bridge opens a
 * connection to the VIP, which A (master) forwards by direct routing to a real server; B's backup
 * sync daemon copies it into B's table. Then the test pulls A's plug: B takes the VIP and the
 * client goes on on the same established connection, through B.
 */
class SyncFailoverUmlTest {
  private static Process switchProcess;
  private static Uml.Running a;
  private static Uml.Result aResult;
  private static Uml.Result b;
  private static long killedAtMillis;
  private static Properties client;

  @BeforeAll
  static void boot() throws Exception {
    Uml.assumeAvailable();
    ExternalPrograms.requireThat(
        Files.isExecutable(Path.of("/usr/bin/uml_switch")),
        () -> "uml_switch is not installed (apt-get install uml-utilities)");
    Path scenario = Files.createTempDirectory("sync-fail-");
    for (String f : List.of("a.sh", "b.sh", "a.conf", "b.conf", "echo.py", "client.py")) {
      try (InputStream in = SyncFailoverUmlTest.class.getResourceAsStream("/syncfail/" + f)) {
        Files.copy(Objects.requireNonNull(in, f), scenario.resolve(f));
      }
    }
    Files.writeString(
        scenario.resolve("fairway.sh"),
        "#!/bin/sh\nexec "
            + Uml.javaCommand(Uml.testClasspath(), "io.fairway.cli.Main")
            + " \"$@\"\n");
    // A short path: a Unix socket's name is at most 107 bytes.
    Path net = Files.createTempDirectory(Path.of("/tmp"), "sync-sw-");
    Path ctl = net.resolve("ctl");
    switchProcess =
        new ProcessBuilder("uml_switch", "-unix", ctl.toString(), "-hub")
            .redirectErrorStream(true)
            .redirectOutput(net.resolve("switch.log").toFile())
            .start();
    await().atMost(Duration.ofSeconds(10)).until(() -> Files.exists(ctl));
    Path outA = Path.of("target", "uml-sync-a").toAbsolutePath();
    Path outB = Path.of("target", "uml-sync-b").toAbsolutePath();
    Uml.clean(outA);
    Uml.clean(outB);
    a =
        Uml.builder()
            .command(
                "sh "
                    + Uml.quote(scenario.resolve("a.sh").toString())
                    + " "
                    + Uml.quote(scenario.toString()))
            .kernelArg("eth0=daemon,fe:fd:0a:63:00:01,unix," + ctl)
            .kernelArg("umid=sync-a-" + ProcessHandle.current().pid())
            .outputDir(outA)
            .timeout(Duration.ofMinutes(8))
            .start();
    Uml.Running bRun =
        Uml.builder()
            .command(
                "sh "
                    + Uml.quote(scenario.resolve("b.sh").toString())
                    + " "
                    + Uml.quote(scenario.toString()))
            .kernelArg("eth0=daemon,fe:fd:0a:63:00:02,unix," + ctl)
            .kernelArg("umid=sync-b-" + ProcessHandle.current().pid())
            .outputDir(outB)
            .timeout(Duration.ofMinutes(8))
            .start();
    // B says when A's connection is in its table; then A dies as a machine does.
    await()
        .atMost(Duration.ofMinutes(6))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> Files.exists(outB.resolve("synced")) || !bRun.alive());
    if (bRun.alive()) {
      // A's last report is at most half a second old: it shows the connection it forwards.
      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () ->
                  Files.readString(outA.resolve("a-state.txt"))
                      .contains("10.99.0.10:" + clientPort(outB)));
    }
    killedAtMillis = System.currentTimeMillis();
    a.kill();
    aResult = a.await();
    b = bRun.await();
    assertThat(b.exitCode()).as(b.diagnostics()).isZero();
    client = new Properties();
    client.load(new StringReader(b.file("client.properties")));
  }

  private static String clientPort(Path outB) throws Exception {
    Properties p = new Properties();
    p.load(new StringReader(Files.readString(outB.resolve("client.properties"))));
    return p.getProperty("client_port");
  }

  @AfterAll
  static void down() {
    if (a != null && a.alive()) {
      a.kill();
    }
    if (switchProcess != null) {
      switchProcess.destroy();
    }
  }

  @Test
  void theConnectionWentThroughTheMasterAndIsInTheBackupsTable() {
    String port = client.getProperty("client_port");
    assertThat(client.getProperty("before")).isEqualTo("a0,a1,a2,a3,a4");
    assertThat(aResult.file("a-state.txt"))
        .as("A forwarded it")
        .containsPattern(
            "TCP .* ESTABLISHED 10\\.99\\.0\\.10:"
                + port
                + " +10\\.99\\.0\\.100:7000 +10\\.99\\.0\\.20:7000")
        .contains("master sync daemon (mcast=eth0, syncid=71,");
    assertThat(b.file("b-daemons-before.txt"))
        .contains("backup sync daemon (mcast=br0, syncid=71,");
    assertThat(b.file("b-conns-synced.txt"))
        .as("copied by the sync daemons")
        .containsPattern(
            "TCP .* ESTABLISHED 10\\.99\\.0\\.10:"
                + port
                + " +10\\.99\\.0\\.100:7000 +10\\.99\\.0\\.20:7000");
  }

  @Test
  void afterFailoverTheBackupKeepsForwardingTheEstablishedConnection() {
    assertThat(b.file("b-addr.txt")).contains("10.99.0.100/24");
    assertThat(client.getProperty("after")).as(b.file("client.log")).isEqualTo("b1");
    assertThat(client.getProperty("after2")).isEqualTo("b2");
    assertThat(b.file("b-daemons-master.txt"))
        .contains("master sync daemon (mcast=br0, syncid=71,");
    assertThat(b.file("b-status-after.txt")).contains("follows VI_1 (MASTER): wants master");
    // UML's clock is the host's (read at boot): B's own log says when it took over. The last
    // MASTER line: on a loaded machine B may also have been master for a moment at start, before
    // it heard A (a stalled JVM), and A preempted it.
    String line =
        b.file("b-run.log")
            .lines()
            .filter(l -> l.contains("(VI_1) Entering MASTER"))
            .reduce((first, second) -> second)
            .orElseThrow();
    long master = java.time.Instant.parse(line.substring(0, line.indexOf(' '))).toEpochMilli();
    long ms = master - killedAtMillis;
    long vip = Long.parseLong(b.file("b-master-at").strip()) / 1_000_000L - killedAtMillis;
    System.out.printf(
        "sync failover: B master %d ms after A died (its script saw the VIP after"
            + " %d ms); the next line on the established connection took %s ms%n",
        ms, vip, client.getProperty("after_ms"));
    // B takes over within a loaded machine's bound of the master down interval (3 x 1 s + (256 -
    // 100) / 256 s after A's last advert). No lower bound from the kill: A's last advert can be
    // seconds before it when A's kernel is starved (CI, with another test JVM beside this one, saw
    // 1,769 ms), and a starved A that sent nothing for a master down interval is dead to B
    // before the kill (B's line came 475 ms before it once, 2026-12-02, load 15). That B waits
    // the whole interval after the last advert it heard is VrrpOpsTest's claim, on the wire.
    assertThat(ms).isLessThanOrEqualTo(15_000L);
  }

  @Test
  void theBackupStopsItsDaemonAtExit() {
    assertThat(b.file("b-run.code").strip()).as(b.file("b-run.log")).isEqualTo("0");
    assertThat(b.file("b-daemons-after.txt")).isEmpty();
    assertThat(b.file("b-run.log")).doesNotContain("Exception");
  }
}
