package io.fairway.daemon.uml;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.testkit.uml.Uml;
import java.io.InputStream;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Properties;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * overflow_to_sorry_server with {@code fairway run} on the real IPVS in user-mode Linux (issue 17):
 * clients in one network namespace, real servers in another, connections held open. One boot runs
 * resources/overflow/overflow.sh: the kernel with overflow (port 80) and without (port 81) side by
 * side, then the same file on {@code --userspace}.
 */
class OverflowUmlTest {
  /** Above driver.py's RAISE_LIMIT_S, so a late raise fails there with the table it saw. */
  private static final double RAISE_BOUND_S = 61;

  private static Uml.Result r;

  @BeforeAll
  static void boot() throws Exception {
    Uml.assumeAvailable();
    Path scenario = Files.createTempDirectory("overflow-uml-");
    for (String f :
        List.of(
            "overflow.conf",
            "overflow.sh",
            "topology.sh",
            "backend.py",
            "driver.py",
            "weights.py")) {
      try (InputStream in = OverflowUmlTest.class.getResourceAsStream("/overflow/" + f)) {
        Files.copy(Objects.requireNonNull(in, f), scenario.resolve(f));
      }
    }
    Files.writeString(
        scenario.resolve("fairway.sh"),
        "#!/bin/sh\nexec "
            + Uml.javaCommand(Uml.testClasspath(), "io.fairway.cli.Main")
            + " \"$@\"\n");
    Path out = Path.of("target", "uml-overflow").toAbsolutePath();
    Uml.clean(out);
    r =
        Uml.builder()
            .command(
                "sh "
                    + Uml.quote(scenario.resolve("overflow.sh").toString())
                    + " "
                    + Uml.quote(scenario.toString()))
            .outputDir(out)
            .timeout(Duration.ofMinutes(8))
            .run();
    assertThat(r.exitCode()).as(r.diagnostics()).isZero();
  }

  private static Properties run(String name) throws Exception {
    assertThat(r.file(name + ".code").strip())
        .as(name + ": " + r.file(name + ".log"))
        .isEqualTo("0");
    Properties p = new Properties();
    p.load(new StringReader(r.file(name + ".properties")));
    return p;
  }

  /** The real servers' addresses in the order the connections got them (ports dropped). */
  private static List<String> hosts(String csv) {
    return List.of(csv.split(",")).stream().map(s -> s.substring(0, s.indexOf(':'))).toList();
  }

  @Test
  void theThirteenthConnectionLandsOnTheSorryServerOnTheKernel() throws Exception {
    Properties k = run("kernel-80");
    assertThat(hosts(k.getProperty("first12"))).hasSize(12).doesNotContain("10.17.1.9");
    assertThat(k.getProperty("thirteenth"))
        .as("the backend that answered")
        .isEqualTo("10.17.1.9:80");
    // ipvsadm -Lnc: the 13th client's connection goes to the sorry server.
    String port = k.getProperty("thirteenth_client_port");
    assertThat(
            r.file("kernel-conns.txt")
                .lines()
                .filter(l -> l.contains("10.18.0.2:" + port + " "))
                .toList())
        .singleElement(org.assertj.core.api.InstanceOfAssertFactories.STRING)
        .containsPattern("10\\.16\\.0\\.1:80\\s+10\\.17\\.1\\.9:80");
    // Raised by the watch while the pool is full. How soon is bench/overflow-switch.sh's figure
    // (14-140 ms at load 15-19, docs/benchmarks.md); here only that it comes before the driver's
    // bound, which allows for a JVM inside UML on a machine at load 25+ (10.8 s was seen).
    assertThat(Double.parseDouble(k.getProperty("raised_after_s"))).isLessThan(RAISE_BOUND_S);
  }

  @Test
  void withoutTheKeywordTheKernelRefusesTheThirteenth() throws Exception {
    Properties k = run("kernel-81");
    assertThat(k.getProperty("thirteenth")).isEqualTo("None");
    assertThat(r.file("kernel-table-start.txt")).doesNotContain("10.17.1.9:81");
  }

  @Test
  void closingTwoPoolConnectionsSendsTheNextOneToThePool() throws Exception {
    Properties k = run("kernel-80");
    assertThat(k.getProperty("fourteenth")).isEqualTo(k.getProperty("victim"));
  }

  @Test
  void theSchedulersOrderAmongRealServersIsTheKernelsOwn() throws Exception {
    Properties with = run("kernel-80");
    Properties without = run("kernel-81");
    assertThat(hosts(with.getProperty("first12"))).isEqualTo(hosts(without.getProperty("first12")));
    assertThat(hosts(with.getProperty("fourteenth")))
        .isEqualTo(hosts(without.getProperty("fourteenth")));
    // rr over the kernel's list, the reverse of the order keepalived (and Fairway) added them.
    assertThat(hosts(with.getProperty("first12")).subList(0, 3))
        .containsExactly("10.17.1.3", "10.17.1.2", "10.17.1.1");
  }

  @Test
  void theStandingBySorryServerIsAtWeightZeroAndTheRunEndsClean() {
    assertThat(r.file("kernel-table-start.txt")).containsPattern("-> 10\\.17\\.1\\.9:80 +Masq +0 ");
    assertThat(r.file("kernel-run.code").strip()).isEqualTo("0");
    assertThat(r.file("kernel-run.log"))
        .contains("new connections to the sorry server")
        .contains("new connections to the pool")
        .doesNotContain("Exception");
  }

  @Test
  void aServerThatComesUpLaterIsSteppedUpOverItsSlowStartOnTheKernel() {
    // "ms weight" each time the weight read back from the kernel changed (slow_start 3, weight 10).
    List<int[]> steps =
        r.file("kernel-ramp.txt")
            .lines()
            .map(l -> l.trim().split(" "))
            .map(f -> new int[] {Integer.parseInt(f[0]), Integer.parseInt(f[1])})
            .toList();
    assertThat(steps).as(r.file("kernel-ramp.txt")).hasSizeBetween(3, 10);
    assertThat(steps.get(0)[1]).as("installed low, not at its weight").isLessThanOrEqualTo(2);
    assertThat(steps.get(steps.size() - 1)[1]).isEqualTo(10);
    for (int i = 1; i < steps.size(); i++) {
      assertThat(steps.get(i)[1]).isGreaterThan(steps.get(i - 1)[1]);
    }
    // The last step starts at 9/10 of 3 s; allow the 50 ms stepping and a slow UML.
    assertThat(steps.get(steps.size() - 1)[0]).isBetween(2_000, 8_000);
  }

  @Test
  void theSameSequenceThroughUserspaceLandsOnTheSameDestinations() throws Exception {
    Properties k80 = run("kernel-80");
    Properties u80 = run("user-80");
    assertThat(u80.getProperty("first12")).isEqualTo(k80.getProperty("first12"));
    assertThat(u80.getProperty("thirteenth")).isEqualTo("10.17.1.9:80");
    assertThat(u80.getProperty("fourteenth")).isEqualTo(k80.getProperty("fourteenth"));
    // The proxy's scheduler expires closed connections in one-second batches, up to a second
    // after its status does (driver.py --settle): bounded, not a drift.
    assertThat(Integer.parseInt(u80.getProperty("fourteenth_attempts"))).isLessThanOrEqualTo(15);
    Properties k81 = run("kernel-81");
    Properties u81 = run("user-81");
    assertThat(u81.getProperty("first12")).isEqualTo(k81.getProperty("first12"));
    assertThat(u81.getProperty("thirteenth"))
        .as("no overflow without the keyword")
        .isEqualTo("None");
    assertThat(u81.getProperty("fourteenth")).isEqualTo(k81.getProperty("fourteenth"));
    assertThat(Integer.parseInt(u81.getProperty("fourteenth_attempts"))).isLessThanOrEqualTo(15);
    assertThat(r.file("user-run.code").strip()).isEqualTo("0");
  }
}
