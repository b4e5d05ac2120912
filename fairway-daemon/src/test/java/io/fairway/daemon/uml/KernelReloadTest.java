package io.fairway.daemon.uml;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.testkit.uml.Uml;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The plan fields that reach the kernel reload on the kernel as they do on the userspace plane
 * ({@code PlanReloadTest}): weights, thresholds, persistence, scheduler, scheduler flags, servers
 * added and removed, forwarding method. One boot runs {@link KernelReloadMain}: a reload per field,
 * each checked in {@code ipvsadm}'s own output and, under NAT, by where 64 new connections go;
 * requests sent while each reload runs must not fail, and a connection opened before the first
 * reload must still work after the last.
 */
class KernelReloadTest {
  private static Uml.Result r;
  private static String keep;
  private static String other;

  @BeforeAll
  static void boot() throws Exception {
    Uml.assumeAvailable();
    Path out = Path.of("target", "uml-kernel-reload").toAbsolutePath();
    Uml.clean(out);
    r =
        Uml.builder()
            .javaMain(KernelReloadMain.class)
            .outputDir(out)
            .timeout(Duration.ofMinutes(6))
            .run();
    assertThat(r.exitCode()).as(r.diagnostics()).isZero();
    keep = r.file("kept.txt").strip();
    assertThat(keep).isIn("b1", "b2");
    other = keep.equals("b1") ? "b2" : "b1";
  }

  private static String ip(String backend) {
    return "10.16.1." + backend.substring(1) + ":80";
  }

  private static List<String> section(String step, String name) {
    List<String> lines = r.file(step + ".txt").lines().toList();
    int from = lines.indexOf(name) + 1;
    assertThat(from).as(step + " has " + name + "\n" + r.file(step + ".txt")).isPositive();
    int to = from;
    while (to < lines.size()
        && !List.of("save", "thresholds").contains(lines.get(to))
        && !lines.get(to).startsWith("reached ")
        && !lines.get(to).startsWith("kept ")) {
      to++;
    }
    return lines.subList(from, to);
  }

  private static String line(String step, String prefix) {
    return r.file(step + ".txt").lines().filter(l -> l.startsWith(prefix)).findFirst().orElse("");
  }

  private static Map<String, Long> reached(String step) {
    String l = line(step, "reached ");
    assertThat(l).as(step + ": probes").isNotEmpty();
    return Arrays.stream(l.substring(8).split(" "))
        .collect(Collectors.groupingBy(Function.identity(), Collectors.counting()));
  }

  /**
   * The sorted {@code ipvsadm -Sn} lines: the service, then each destination with forwarding and
   * weight.
   */
  private static void table(String step, String service, String... dests) {
    List<String> want = new java.util.ArrayList<>();
    want.add("-A -t 10.16.0.1:80 " + service);
    for (String d : dests) {
      want.add("-a -t 10.16.0.1:80 -r " + d);
    }
    assertThat(section(step, "save")).as(step).containsExactlyInAnyOrderElementsOf(want);
  }

  private static void reloadedUnderTraffic(String step) {
    assertThat(line(step, "reload ")).as(step).isEqualTo("reload ok");
    assertThat(line(step, "failed-during-reload "))
        .as(step)
        .matches("failed-during-reload 0 of [1-9]\\d*");
  }

  private static void keptConnectionWorks(String step) {
    assertThat(line(step, "kept "))
        .as(step + ": the connection made before the first reload")
        .isEqualTo("kept " + keep + " ping");
  }

  @Test
  void startsAsConfigured() {
    table("0-start", "-s wrr", ip("b1") + " -m -w 1", ip("b2") + " -m -w 1");
    assertThat(reached("0-start")).containsOnlyKeys("b1", "b2").containsEntry("b1", 32L);
    keptConnectionWorks("0-start");
  }

  @Test
  void aWeight() {
    reloadedUnderTraffic("1-weight");
    table("1-weight", "-s wrr", ip(keep) + " -m -w 3", ip(other) + " -m -w 1");
    assertThat(reached("1-weight")).containsEntry(keep, 48L).containsEntry(other, 16L);
    keptConnectionWorks("1-weight");
  }

  @Test
  void thresholdsAndTheirRemoval() {
    reloadedUnderTraffic("2-thresholds");
    assertThat(section("2-thresholds", "thresholds"))
        .as("Uthreshold Lthreshold ActiveConn InActConn")
        .anyMatch(
            l ->
                l.matches(
                    "\\s*-> " + ip(keep).replace(".", "\\.") + "\\s+2\\s+1\\s+\\d+\\s+\\d+\\s*"));
    // The connections it already has count (the kept one, and the closed ones still inactive): the
    // server takes at most the one new connection that sets its OVERLOAD flag, which only a total
    // below lthreshold would clear.
    assertThat(reached("2-thresholds").getOrDefault(keep, 0L)).isLessThanOrEqualTo(1L);
    reloadedUnderTraffic("3-no-thresholds");
    assertThat(section("3-no-thresholds", "thresholds"))
        .anyMatch(
            l ->
                l.matches(
                    "\\s*-> " + ip(keep).replace(".", "\\.") + "\\s+0\\s+0\\s+\\d+\\s+\\d+\\s*"));
    assertThat(reached("3-no-thresholds")).containsEntry(keep, 48L).containsEntry(other, 16L);
    keptConnectionWorks("3-no-thresholds");
  }

  @Test
  void persistenceAndItsRemoval() {
    reloadedUnderTraffic("4-persistence");
    table("4-persistence", "-s wrr -p 60", ip(keep) + " -m -w 3", ip(other) + " -m -w 1");
    assertThat(reached("4-persistence")).as("one client, one server").hasSize(1);
    reloadedUnderTraffic("5-no-persistence");
    table("5-no-persistence", "-s wrr", ip(keep) + " -m -w 3", ip(other) + " -m -w 1");
    assertThat(reached("5-no-persistence")).containsEntry(keep, 48L).containsEntry(other, 16L);
  }

  @Test
  void schedulerAndFlags() {
    reloadedUnderTraffic("6-scheduler");
    table("6-scheduler", "-s sh", ip(keep) + " -m -w 3", ip(other) + " -m -w 1");
    assertThat(reached("6-scheduler")).as("sh: one client address, one server").hasSize(1);
    reloadedUnderTraffic("7-flags");
    table("7-flags", "-s sh -b sh-port", ip(keep) + " -m -w 3", ip(other) + " -m -w 1");
    assertThat(reached("7-flags"))
        .as("sh-port: the client's ports spread it")
        .containsOnlyKeys(keep, other);
    keptConnectionWorks("7-flags");
  }

  @Test
  void serversAddedAndRemoved() {
    assertThat(line("8-servers", "reload ")).isEqualTo("reload ok");
    table("8-servers", "-s sh -b sh-port", ip(keep) + " -m -w 3", ip("b3") + " -m -w 1");
    assertThat(reached("8-servers")).containsOnlyKeys(keep, "b3");
    keptConnectionWorks("8-servers");
  }

  @Test
  void forwardingMethod() {
    assertThat(line("9-forwarding", "reload ")).isEqualTo("reload ok");
    table("9-forwarding", "-s sh -b sh-port", ip(keep) + " -g -w 3", ip("b3") + " -g -w 1");
    keptConnectionWorks("9-forwarding");
  }
}
