package io.fairway.apply.uml;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.testkit.uml.Uml;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The applier against the real Linux IPVS, in user-mode Linux: one boot runs {@link
 * KernelScenario}; each test checks one step of it.
 */
class KernelApplyTest {
  private static Uml.Result result;

  @BeforeAll
  static void boot() throws Exception {
    Uml.assumeAvailable();
    Path out = Path.of("target", "uml-kernel-apply").toAbsolutePath();
    Uml.clean(out);
    result =
        Uml.builder()
            .javaMain(KernelScenario.class, Uml.OUT)
            .outputDir(out)
            .timeout(Duration.ofMinutes(4))
            .run();
    assertThat(result.exitCode()).as(result.diagnostics()).isZero();
  }

  private static List<String> step(int n) {
    List<String> netlink = result.file("step-" + n + ".txt").lines().toList();
    // Read-back: what the kernel table returns over netlink, rendered, equals ipvsadm's own view.
    assertThat(netlink)
        .as("step %d read back vs ipvsadm -Sn", n)
        .isEqualTo(result.file("ipvsadm-" + n + ".txt").lines().toList());
    return netlink;
  }

  private static final List<String> OTHERS =
      List.of(
          "-A -f 5 -s sh -p 60 -M 255.255.255.0",
          "-A -u [2001:db8::1]:53 -s rr",
          // ipvsadm -Sn does not print thresholds (-x/-y), so neither does the read-back rendering.
          "-a -f 5 -r 10.16.2.1:0 -g -w 3",
          "-a -u [2001:db8::1]:53 -r [2001:db8::10]:53 -m -w 1");

  private static List<String> with(String... web) {
    List<String> all = new java.util.ArrayList<>(List.of(web));
    all.addAll(OTHERS);
    return all.stream().sorted().toList();
  }

  @Test
  void install() {
    assertThat(step(1))
        .isEqualTo(
            with(
                "-A -t 10.16.0.1:80 -s wrr",
                "-a -t 10.16.0.1:80 -r 10.16.1.1:80 -m -w 2",
                "-a -t 10.16.0.1:80 -r 10.16.1.2:80 -m -w 1",
                "-a -t 10.16.0.1:80 -r 10.16.1.3:80 -m -w 1"));
  }

  @Test
  void thresholdsAreReadBack() {
    assertThat(result.file("thresholds.txt").strip()).isEqualTo("100 10");
  }

  @Test
  void drainSetsWeightZero() {
    assertThat(step(2)).contains("-a -t 10.16.0.1:80 -r 10.16.1.2:80 -m -w 0");
  }

  @Test
  void removeDeletes() {
    assertThat(step(3)).noneMatch(l -> l.contains("10.16.1.3"));
  }

  @Test
  void quorumLossPutsTheSorryServerInAndThePoolOut() {
    assertThat(step(4))
        .isEqualTo(
            with(
                "-A -t 10.16.0.1:80 -s wrr",
                "-a -t 10.16.0.1:80 -r 10.16.1.2:80 -m -w 0",
                "-a -t 10.16.0.1:80 -r 10.16.9.9:80 -m -w 1"));
  }

  @Test
  void quorumReturnRestoresThePoolAndRemovesTheSorryServer() {
    assertThat(step(5))
        .isEqualTo(
            with(
                "-A -t 10.16.0.1:80 -s wrr",
                "-a -t 10.16.0.1:80 -r 10.16.1.1:80 -m -w 2",
                "-a -t 10.16.0.1:80 -r 10.16.1.2:80 -m -w 1"));
  }

  @Test
  void reloadAppliesTheDifference() {
    assertThat(step(6))
        .isEqualTo(
            with(
                "-A -t 10.16.0.1:80 -s wrr",
                "-a -t 10.16.0.1:80 -r 10.16.1.1:80 -m -w 5",
                "-a -t 10.16.0.1:80 -r 10.16.1.2:80 -m -w 1",
                "-a -t 10.16.0.1:80 -r 10.16.1.4:8080 -m -w 1"));
  }

  @Test
  void driftMadeWithIpvsadmIsFoundAndRepaired() {
    assertThat(step(7))
        .contains("-a -t 10.16.0.1:80 -r 10.16.7.7:80 -m -w 1")
        .doesNotContain("-A -u [2001:db8::1]:53 -s rr");
    assertThat(result.file("drift.txt").lines().toList())
        .hasSize(4)
        .anyMatch(l -> l.contains("10.16.1.1:80") && l.contains("missing dest"))
        .anyMatch(l -> l.contains("10.16.7.7:80") && l.contains("extra dest"))
        .anyMatch(l -> l.contains("10.16.1.2:80") && l.contains("changed dest"))
        .anyMatch(l -> l.contains("2001:db8::1") && l.contains("missing service"));
    assertThat(step(8)).isEqualTo(step(6));
  }

  @Test
  void shutdownRemovesEverything() {
    assertThat(step(9)).isEmpty();
  }
}
