package io.fairway.daemon.uml;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.testkit.ExternalPrograms;
import io.fairway.testkit.uml.Uml;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code fairway run} and {@code fairway status} as an operator uses them, against the kernel's
 * IPVS in user-mode Linux: one boot runs resources/run/run.sh; each test checks one part.
 */
class FairwayRunTest {
  private static Uml.Result r;

  @BeforeAll
  static void boot() throws Exception {
    Uml.assumeAvailable();
    String python = "/usr/bin/python3";
    if (!Files.isExecutable(Path.of(python))) {
      Process p = new ProcessBuilder("python3", "-c", "import sys; print(sys.executable)").start();
      python = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      boolean found = p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
      ExternalPrograms.requireThat(found, () -> "python3 is not installed");
    }

    Path scenario = Files.createTempDirectory("fairway-run-");
    for (String f : List.of("good.conf", "bad.conf", "dns.conf", "run.sh")) {
      try (InputStream in = FairwayRunTest.class.getResourceAsStream("/run/" + f)) {
        Files.copy(Objects.requireNonNull(in, f), scenario.resolve(f));
      }
    }
    Files.writeString(scenario.resolve("python"), python + "\n");
    Files.writeString(
        scenario.resolve("fairway.sh"),
        "#!/bin/sh\nexec "
            + Uml.javaCommand(Uml.testClasspath(), "io.fairway.cli.Main")
            + " \"$@\"\n");
    Path out = Path.of("target", "uml-run").toAbsolutePath();
    Uml.clean(out);
    r =
        Uml.builder()
            .modules(List.of()) // the script loads IPVS itself, after checking life without it
            .command(
                "sh "
                    + Uml.quote(scenario.resolve("run.sh").toString())
                    + " "
                    + Uml.quote(scenario.toString()))
            .outputDir(out)
            .timeout(Duration.ofMinutes(8))
            .run();
    assertThat(r.exitCode()).as(r.diagnostics()).isZero();
  }

  private static final List<String> BOTH =
      List.of(
          "-A -t 10.16.0.1:80 -s rr",
          "-a -t 10.16.0.1:80 -r 10.16.1.1:80 -m -w 1",
          "-a -t 10.16.0.1:80 -r 10.16.1.2:80 -m -w 2");

  private static List<String> lines(String file) {
    return r.file(file).lines().toList();
  }

  @Test
  void aKernelWithoutIpvsGetsOneClearLine() {
    assertThat(r.file("noipvs.code").strip()).isEqualTo("1");
    assertThat(r.file("noipvs.err").strip().lines()).hasSize(1);
    assertThat(r.file("noipvs.err")).contains("no IPVS");
  }

  @Test
  void runInstallsTheConfiguration() {
    assertThat(lines("1-started.txt")).isEqualTo(BOTH);
  }

  @Test
  void statusPrintsTheTableWithHealthAndReasons() {
    assertThat(r.file("status.code").strip()).as(r.file("status.err")).isEqualTo("0");
    String status = r.file("status.txt");
    assertThat(status)
        .contains("TCP  10.16.0.1:80 rr")
        .contains("quorum up")
        .containsPattern("-> 10\\.16\\.1\\.2:80 +Masq +2 +\\d+ +\\d+ +up +10\\.16\\.1\\.2:80: ");
  }

  @Test
  void drainWeightMaintAndReadyReachTheKernelTable() {
    assertThat(r.file("drain.code").strip()).as(r.file("admin.err")).isEqualTo("0");
    assertThat(lines("a-drained.txt"))
        .containsExactly(BOTH.get(0), "-a -t 10.16.0.1:80 -r 10.16.1.1:80 -m -w 0", BOTH.get(2));
    assertThat(lines("b-weighted.txt"))
        .containsExactly(
            BOTH.get(0),
            "-a -t 10.16.0.1:80 -r 10.16.1.1:80 -m -w 0",
            "-a -t 10.16.0.1:80 -r 10.16.1.2:80 -m -w 5");
    assertThat(lines("c-maint.txt"))
        .containsExactly(BOTH.get(0), "-a -t 10.16.0.1:80 -r 10.16.1.2:80 -m -w 5");
    assertThat(r.file("metrics.txt"))
        .contains(
            "fairway_server_admin_state{real_server=\"10.16.1.1:80\",state=\"maint\",virtual_server=\"10.16.0.1:80\"} 1")
        .contains(
            "fairway_server_weight_effective{real_server=\"10.16.1.2:80\",virtual_server=\"10.16.0.1:80\"} 5")
        .contains(
            "fairway_server_connections_total{real_server=\"10.16.1.2:80\",virtual_server=\"10.16.0.1:80\"}");
    assertThat(r.file("ready.code").strip()).as(r.file("admin.err")).isEqualTo("0");
    assertThat(lines("d-ready.txt")).isEqualTo(BOTH);
    assertThat(r.file("admin.err")).isEmpty();
  }

  private static double connections(String scrape) {
    return scrape
        .lines()
        .filter(l -> l.startsWith("fairway_server_connections_total{"))
        .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
        .sum();
  }

  @Test
  void theIpvsConnectionCountersFollowTraffic() {
    assertThat(r.file("traffic.txt")).contains("ok 10");
    assertThat(connections(r.file("metrics-after.txt")) - connections(r.file("metrics-before.txt")))
        .as(r.file("metrics-after.txt"))
        .isEqualTo(10.0);
  }

  @Test
  void anInvalidReloadIsRefusedAndTheRunningConfigurationKeepsWorking() {
    assertThat(lines("2-after-bad-reload.txt")).isEqualTo(BOTH);
    assertThat(r.file("run.log")).contains("reload refused").contains("k.conf:");
    assertThat(lines("3-after-failure.txt")).isEqualTo(BOTH.subList(0, 2));
  }

  @Test
  void realServersFromDnsReachTheKernelTableAndFollowTheAnswer() {
    List<String> dns =
        List.of(
            "-A -t 10.16.0.2:80 -s rr",
            "-a -t 10.16.0.2:80 -r 10.16.1.3:80 -m -w 3",
            "-a -t 10.16.0.2:80 -r 10.16.1.4:80 -m -w 3");
    assertThat(lines("3b-dns.txt")).as(r.file("run.log")).containsAll(dns);
    assertThat(lines("3c-dns-left.txt"))
        .as("10.16.1.4 left dnsmasq's answer (hold 0)")
        .containsAll(dns.subList(0, 2))
        .doesNotContain(dns.get(2));
    assertThat(lines("3d-dns-removed.txt")).isEqualTo(BOTH.subList(0, 2));
  }

  @Test
  void driftIsRepaired() {
    // (4-drifted.txt may already be repaired: the pass runs every second.) The log proves the
    // deletion was seen and converged.
    assertThat(lines("5-repaired.txt")).isEqualTo(BOTH.subList(0, 2));
    assertThat(r.file("run.log")).contains("drift: TCP 10.16.0.1:80 -> 10.16.1.1:80: missing dest");
  }

  @Test
  void sigtermRemovesWhatFairwayInstalledAndExitsZero() {
    assertThat(r.file("run.code").strip()).isEqualTo("0");
    assertThat(r.file("6-after-stop.txt")).isEmpty();
    assertThat(r.file("run.log")).doesNotContain("Exception").doesNotContain("\tat ");
  }
}
