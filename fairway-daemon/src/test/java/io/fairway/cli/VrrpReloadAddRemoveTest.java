package io.fairway.cli;

import static io.fairway.cli.VrrpInteropTest.START;
import static io.fairway.cli.VrrpInteropTest.VIP;
import static io.fairway.cli.VrrpInteropTest.globals;
import static io.fairway.cli.VrrpInteropTest.instance;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fairway.cli.VrrpRouterProcess.Kind;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * SIGHUP that brings VRRP to a {@code fairway run} that had none, and one that takes every VRRP
 * block away, in two network namespaces joined by a veth pair ({@link VrrpLab}): A is the router
 * reloaded, B a Fairway backup of VI_1 (priority 100) that holds the address while A has no VRRP.
 *
 * <ul>
 *   <li>A file with only a virtual server (userspace proxy) gains VI_1 (state MASTER, priority
 *       150): the instance starts as at start-up (BACKUP, then MASTER after one advert interval and
 *       preempts B); removing every vrrp_instance again makes A hand over with priority 0 (B holds
 *       the address within its skew time, not its master down interval), run keepalived's
 *       reload-deletion notify (the generic one with FAULT; no notify_fault, no notify_stop), and
 *       keep running its virtual server; a second add works the same.
 *   <li>A VRRP-only run reloaded to a file without VRRP hands over the same way and keeps running
 *       (its admin listener answers), and a reload brings VRRP back.
 *   <li>keepalived 2.2.7 and Fairway give the same notify lines when a reload deletes a master
 *       instance (clear_diff_vrrp: the generic notify with FAULT, as notify_deleted is not set).
 *   <li>A run started without CAP_NET_ADMIN and CAP_NET_RAW refuses the reload that adds VRRP with
 *       one line and keeps running what it ran.
 * </ul>
 */
@Tag("netns")
class VrrpReloadAddRemoveTest extends VrrpLab {
  /**
   * A hand-over by priority 0: B's skew time at priority 100 ((256 - 100) / 256 s) on a quiet
   * machine, and below the master down timer's earliest takeover always (see {@link
   * VrrpInteropTest#PRIORITY_ZERO_TAKEOVER}).
   */
  static final Duration HAND_OVER = VrrpInteropTest.PRIORITY_ZERO_TAKEOVER;

  // --- configuration ---------------------------------------------------------------------------

  /** A userspace virtual server on the VRRP address (listened on before it is held). */
  static String virtualServer() {
    return "virtual_server "
        + VIP
        + " 8080 {\n  lb_algo rr\n  lb_kind PROXY\n  protocol TCP\n"
        + "  real_server 10.99.0.3 8081 {\n    weight 1\n  }\n}\n";
  }

  /** keepalived's notify keywords for every state, each script told its own word. */
  static String notifies(Path script) {
    return "  notify_master \""
        + script
        + " master\"\n  notify_backup \""
        + script
        + " backup\"\n  notify_fault \""
        + script
        + " fault\"\n  notify_stop \""
        + script
        + " stop\"\n  notify "
        + script
        + "\n";
  }

  static void reload(VrrpRouterProcess r, String config) throws Exception {
    Files.writeString(r.config(), config);
    r.hup();
  }

  /** B: VI_1 at priority 100, master while A has no VRRP. */
  VrrpRouterProcess startB() throws Exception {
    VrrpRouterProcess b =
        start(Kind.FAIRWAY, net.b, globals() + instance("VI_1", 51, 100, "BACKUP", "", VIP));
    awaitHolds(net.b, START);
    return b;
  }

  static void awaitHolds(String ns, Duration within) {
    awaitHolds(ns, VIP, within);
  }

  static void awaitReleased(String ns, Duration within) {
    awaitReleased(ns, VIP, within);
  }

  static int count(String text, String part) {
    int n = 0;
    for (int i = text.indexOf(part); i >= 0; i = text.indexOf(part, i + 1)) {
      n++;
    }
    return n;
  }

  /**
   * A's VI_1 is removed by a reload while master: B holds the address within its skew time after A
   * released it (A sent priority 0), and A does not hold it.
   */
  Duration removeAndMeasure(VrrpRouterProcess a, String without) throws Exception {
    reload(a, without);
    awaitReleased(net.a, START);
    long released = System.nanoTime();
    awaitHolds(net.b, Duration.ofSeconds(5));
    return Duration.ofNanos(System.nanoTime() - released);
  }

  // --- scenarios -------------------------------------------------------------------------------

  @Test
  void aReloadAddsVrrpToAVirtualServerRunAndAnotherTakesItAway() throws Exception {
    Path out = dir.resolve("notify-a.log");
    Path script = notifyScript("notify-a", out);
    startB(); // the backup on the other side; closed with the others after the test
    String servers = globals() + virtualServer();
    String withVrrp = servers + instance("VI_1", 51, 150, "MASTER", notifies(script), VIP);
    VrrpRouterProcess a = start(Kind.FAIRWAY, net.a, servers, "--userspace", "--grace-period", "0");
    await().atMost(START).until(() -> a.logText().contains("running "));
    assertThat(Netns.holds(net.a, VIP)).isFalse();
    monitor = Monitor.start(net, VIP);

    // Added: starts as at start-up (state MASTER: BACKUP first, then master, preempting B).
    reload(a, withVrrp);
    awaitHolds(net.a, START);
    awaitReleased(net.b, Duration.ofSeconds(3));
    assertThat(a.logText())
        .contains("VRRP: started 1 instances by the reload")
        .containsSubsequence("(VI_1) Entering BACKUP STATE", "(VI_1) Entering MASTER STATE");
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> Files.exists(out) && Files.readAllLines(out).size() >= 4);
    List<String> started = Files.readAllLines(out);
    assertThat(started.subList(0, 2))
        .containsExactlyInAnyOrder("backup", "INSTANCE VI_1 BACKUP 150");
    assertThat(started.subList(2, 4))
        .containsExactlyInAnyOrder("master", "INSTANCE VI_1 MASTER 150");

    // Removed (the file has no VRRP block left): priority 0, B takes over after its skew time.
    Duration handOver = removeAndMeasure(a, servers);
    System.out.println(
        "every vrrp_instance removed from A: B holds "
            + VIP
            + " "
            + handOver.toMillis()
            + " ms"
            + " after A released it (skew time 609 ms, master down interval 3,609 ms)");
    assertThat(handOver).isLessThan(HAND_OVER);
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> a.logText().contains("every vrrp_instance removed by the reload"));
    // keepalived's notify for an instance a reload deletes: the generic one with FAULT only.
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> Files.readAllLines(out).contains("INSTANCE VI_1 FAULT 150"));
    List<String> removed = Files.readAllLines(out);
    assertThat(removed.subList(4, removed.size())).containsExactly("INSTANCE VI_1 FAULT 150");
    assertThat(a.alive()).isTrue();
    assertThat(a.logText()).doesNotContain("reload refused").doesNotContain("Exception");

    // And again: the speaker stayed (idle), the second add starts VI_1 as the first did.
    reload(a, withVrrp);
    awaitHolds(net.a, START);
    awaitReleased(net.b, Duration.ofSeconds(3));
    assertThat(count(a.logText(), "(VI_1) Entering MASTER STATE")).isEqualTo(2);
    assertThat(count(a.logText(), "(VI_1) Entering BACKUP STATE")).isEqualTo(2);
    assertThat(monitor.worstOverlap()).isLessThan(Duration.ofSeconds(1));
    a.term();
    assertThat(a.exitCode()).isZero();
  }

  @Test
  void aVrrpOnlyRunReloadedToNoVrrpHandsOverKeepsRunningAndTakesVrrpBack() throws Exception {
    startB(); // the backup on the other side; closed with the others after the test
    String withVrrp = globals() + instance("VI_1", 51, 150, "MASTER", "", VIP);
    VrrpRouterProcess a = start(Kind.FAIRWAY, net.a, withVrrp, "--admin", "127.0.0.1:9107");
    awaitHolds(net.a, START);
    awaitReleased(net.b, Duration.ofSeconds(3));
    monitor = Monitor.start(net, VIP);

    Duration handOver = removeAndMeasure(a, globals());
    System.out.println(
        "VRRP-only run reloaded to no VRRP: B holds "
            + VIP
            + " "
            + handOver.toMillis()
            + " ms"
            + " after A released it");
    assertThat(handOver).isLessThan(HAND_OVER);
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> a.logText().contains("reloaded " + a.config() + " (VRRP only)"));
    assertThat(a.logText()).contains("every vrrp_instance removed by the reload");
    assertThat(a.alive()).isTrue();
    assertThat(VrrpOpsTest.curl(net.a, "/healthz")).isEqualTo("{\"status\":\"ok\"}");
    assertThat(VrrpOpsTest.curl(net.a, "/api/v1/vrrp")).contains("\"instances\":[]");

    reload(a, withVrrp);
    awaitHolds(net.a, START);
    awaitReleased(net.b, Duration.ofSeconds(3));
    assertThat(count(a.logText(), "(VI_1) Entering MASTER STATE")).isEqualTo(2);
    assertThat(VrrpOpsTest.curl(net.a, "/api/v1/vrrp")).contains("\"name\":\"VI_1\"");
    assertThat(monitor.worstOverlap()).isLessThan(Duration.ofSeconds(1));
    a.term();
    assertThat(a.exitCode()).isZero();
  }

  @Test
  void aReloadThatDeletesAMasterNotifiesAsKeepalivedDoes() throws Exception {
    List<List<String>> runs = new ArrayList<>();
    for (Kind k : List.of(Kind.KEEPALIVED, Kind.FAIRWAY)) {
      Path out = dir.resolve("notify-" + k + ".log");
      Path script = notifyScript("notify-" + k, out);
      // VI_2 stays (so keepalived's VRRP process has an instance after the reload too); its
      // generic notify at the stop marks the end of the run's lines.
      String vi2 =
          instance("VI_2", 52, 150, "MASTER", "  notify " + script + "\n", VrrpInteropTest.VIP2);
      String both = globals() + instance("VI_1", 51, 150, "MASTER", notifies(script), VIP) + vi2;
      VrrpRouterProcess r = start(k, net.a, both);
      awaitHolds(net.a, START);
      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () ->
                  Files.exists(out)
                      && Files.readAllLines(out).contains("master")
                      && Files.readAllLines(out).contains("INSTANCE VI_1 MASTER 150")
                      && Files.readAllLines(out).contains("INSTANCE VI_2 MASTER 150"));
      int before = Files.readAllLines(out).size();
      reload(r, globals() + vi2);
      awaitReleased(net.a, Duration.ofSeconds(10));
      await()
          .atMost(Duration.ofSeconds(5))
          .until(() -> Files.readAllLines(out).contains("INSTANCE VI_1 FAULT 150"));
      r.term();
      await()
          .atMost(Duration.ofSeconds(5))
          .until(() -> Files.readAllLines(out).contains("INSTANCE VI_2 STOP 150"));
      List<String> lines = Files.readAllLines(out);
      // From the reload on, without the stop of VI_2.
      runs.add(
          lines.subList(before, lines.size()).stream().filter(l -> !l.contains("VI_2")).toList());
    }
    System.out.println(
        "notify lines from the reload on: keepalived " + runs.get(0) + ", fairway " + runs.get(1));
    // keepalived 2.2.7: the generic notify with FAULT only (no notify_fault, no notify_stop).
    assertThat(runs.get(0)).containsExactly("INSTANCE VI_1 FAULT 150");
    assertThat(runs.get(1)).isEqualTo(runs.get(0));
  }

  @Test
  void withoutTheCapabilitiesAReloadThatAddsVrrpIsRefusedInOneLine() throws Exception {
    String servers = globals() + virtualServer();
    VrrpRouterProcess a =
        start(
            Kind.FAIRWAY,
            net.a,
            servers,
            List.of("setpriv", "--bounding-set", "-net_admin,-net_raw", "--"),
            "--userspace",
            "--grace-period",
            "0");
    await().atMost(START).until(() -> a.logText().contains("running "));
    reload(a, servers + instance("VI_1", 51, 150, "MASTER", "", VIP));
    await().atMost(Duration.ofSeconds(20)).until(() -> a.logText().contains("reload refused"));
    List<String> refused = a.logText().lines().filter(l -> l.contains("reload refused")).toList();
    assertThat(refused)
        .singleElement(org.assertj.core.api.InstanceOfAssertFactories.STRING)
        .matches(
            ".*reload refused, still running the previous configuration: .*\\.conf:\\d+:"
                + " vrrp_instance VI_1: VRRP needs CAP_NET_ADMIN and CAP_NET_RAW, which this"
                + " fairway run does not have \\(it started without VRRP\\); restart it with them");
    assertThat(a.alive()).isTrue();
    assertThat(Netns.holds(net.a, VIP)).isFalse();
    assertThat(a.logText()).doesNotContain("Entering").doesNotContain("Exception");
    a.term();
    assertThat(a.exitCode()).isZero();
  }
}
