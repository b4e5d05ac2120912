package io.fairway.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fairway.cli.VrrpRouterProcess.Kind;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Fairway and keepalived 2.2.7 as the two routers of one VRRP instance, each way round, and Fairway
 * with Fairway: two network namespaces joined by a veth pair (see {@link Netns}), so the adverts,
 * gratuitous ARPs and address changes are real but never reach the host's network.
 *
 * <p>"High" has priority 150, "low" 100 (master down interval 3 x 1 s + 156/256 s = 3.61 s). A
 * monitor follows both namespaces' address changes as the kernel reports them and the tests check
 * that the two never held the virtual address together for longer than one advert interval.
 *
 * <p>One test at a time: run three at once (each in its own namespaces) the class took 112-169 s
 * instead of 305 s on a shared machine at load 27-36, but a Fairway backup then took over up to 6 s
 * after the kill instead of 3.6 s (4 of 29 failed); the claims here are timings.
 */
@Tag("netns")
class VrrpInteropTest extends VrrpLab {
  static final String VIP = "10.99.0.100";
  static final String VIP2 = "10.99.0.101";
  static final String VIP6 = "2001:db8:99::100";
  static final Duration MASTER_DOWN_LOW = Duration.ofMillis(3000 + 156 * 1000 / 256);

  /**
   * Starting two routers, JVM included, and the first election: seconds normally; a precondition,
   * not a claim. A `fairway run --userspace` at nice 10 beside another suite (load 25-30) wrote its
   * first line 29 s after its start (2026-12-02).
   */
  static final Duration START = Duration.ofSeconds(90);

  /** Polling granularity and process start-up on a loaded 2-core machine. */
  static final Duration SLACK = Duration.ofMillis(400);

  /**
   * The bound on a takeover that a priority 0 advert causes, measured from the master's release. On
   * a quiet machine it is the backup's skew time (609 ms at priority 100); the bound only has to
   * tell it from a takeover by the master down timer, which comes at least the master down interval
   * after the last advert, itself at most one advert interval before the release. Beside a loaded
   * suite, both JVMs at nice 10, a Fairway backup took 1.5 s (2026-12-02). The milliseconds are
   * measured on the wire by VrrpOpsTest and bench/vrrp-failover.sh, not here.
   */
  static final Duration PRIORITY_ZERO_TAKEOVER = MASTER_DOWN_LOW.minusSeconds(1);

  enum Pairing {
    FAIRWAY_HIGH_KEEPALIVED_LOW(Kind.FAIRWAY, Kind.KEEPALIVED),
    KEEPALIVED_HIGH_FAIRWAY_LOW(Kind.KEEPALIVED, Kind.FAIRWAY),
    FAIRWAY_BOTH(Kind.FAIRWAY, Kind.FAIRWAY);

    final Kind high;
    final Kind low;

    Pairing(Kind high, Kind low) {
      this.high = high;
      this.low = low;
    }
  }

  // --- configuration ---------------------------------------------------------------------------

  static String instance(
      String name, int vrid, int prio, String state, String extra, String... vips) {
    StringBuilder v = new StringBuilder();
    for (String a : vips) {
      v.append("    ").append(a).append(a.contains(":") ? "/64" : "/24").append('\n');
    }
    return "vrrp_instance "
        + name
        + " {\n  state "
        + state
        + "\n  interface eth0\n"
        + "  virtual_router_id "
        + vrid
        + "\n  priority "
        + prio
        + "\n  advert_int 1\n"
        + extra
        + "  virtual_ipaddress {\n"
        + v
        + "  }\n}\n";
  }

  static String auth(String pass) {
    return "  authentication {\n    auth_type PASS\n    auth_pass " + pass + "\n  }\n";
  }

  static String globals() {
    return "global_defs {\n  router_id test\n  script_user root\n}\n";
  }

  /**
   * Every router here gets {@link #globals()} before its {@code config}, and is running (in its
   * first VRRP state) when this returns. A scenario's clock must not start before then: beside a
   * loaded suite a Fairway JVM took 8-10 s to get there, and a master killed meanwhile was taken
   * over "5.8 s" later, start-up included (2026-12-02, KEEPALIVED_HIGH_FAIRWAY_LOW).
   */
  @Override
  VrrpRouterProcess start(Kind kind, String ns, String config, String... fairwayArgs)
      throws Exception {
    VrrpRouterProcess r = super.start(kind, ns, globals() + config, fairwayArgs);
    awaitRunning(r);
    return r;
  }

  /** How long until {@code ns} holds {@code vip}, measured from {@code t0} (nanoTime). */
  Duration timeUntilHolds(String ns, String vip, long t0, Duration within) {
    awaitHolds(ns, vip, within);
    return Duration.ofNanos(System.nanoTime() - t0);
  }

  void assertNotHeld(String ns, String vip, Duration during) {
    await()
        .during(during)
        .atMost(during.plusSeconds(6))
        .pollInterval(Duration.ofMillis(50))
        .until(() -> !Netns.holds(ns, vip));
  }

  // --- scenarios -------------------------------------------------------------------------------

  @ParameterizedTest
  @EnumSource(Pairing.class)
  void higherPriorityIsMasterKillMovesItAndReturnPreempts(Pairing p) throws Exception {
    String high = instance("VI_1", 51, 150, "MASTER", auth("secret"), VIP);
    String low = instance("VI_1", 51, 100, "BACKUP", auth("secret"), VIP);
    VrrpRouterProcess lowR = start(p.low, net.b, low);
    VrrpRouterProcess highR = start(p.high, net.a, high);
    awaitHolds(net.a, VIP, START);
    monitor = Monitor.start(net, VIP);
    assertNotHeld(net.b, VIP, Duration.ofSeconds(2));

    long t0 = System.nanoTime();
    highR.kill9();
    Duration took = timeUntilHolds(net.b, VIP, t0, Duration.ofSeconds(10));
    System.out.println(
        "kill -9 of "
            + p.high
            + " master -> "
            + p.low
            + " holds "
            + VIP
            + " in "
            + took.toMillis()
            + " ms (master down interval "
            + MASTER_DOWN_LOW.toMillis()
            + " ms)");
    assertThat(took).isLessThanOrEqualTo(MASTER_DOWN_LOW.plus(SLACK));
    assertThat(took)
        .as("not before the master down interval")
        .isGreaterThan(Duration.ofMillis(2500));

    start(p.high, net.a, high);
    awaitHolds(net.a, VIP, START);
    await()
        .atMost(Duration.ofSeconds(3))
        .pollInterval(Duration.ofMillis(20))
        .until(() -> !Netns.holds(net.b, VIP));
    assertThat(lowR.alive()).isTrue();
    assertThat(monitor.worstOverlap())
        .as("both held " + VIP)
        .isLessThanOrEqualTo(Duration.ofSeconds(1));
  }

  @ParameterizedTest
  @EnumSource(Pairing.class)
  void sigtermSendsPriorityZeroAndThePeerTakesOverBeforeItsMasterDownTimer(Pairing p)
      throws Exception {
    String high = instance("VI_1", 51, 150, "MASTER", "", VIP);
    String low = instance("VI_1", 51, 100, "BACKUP", "", VIP);
    start(p.low, net.b, low);
    VrrpRouterProcess highR = start(p.high, net.a, high);
    awaitHolds(net.a, VIP, START);
    assertNotHeld(net.b, VIP, Duration.ofSeconds(2));
    monitor = Monitor.start(net, VIP);
    long t0 = System.nanoTime();
    Thread stopper =
        new Thread(
            () -> {
              try {
                highR.term();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            });
    stopper.start();
    // The master sends its priority 0 advert when it gives the address up; keepalived takes a
    // few hundred ms from SIGTERM to get there (its parent signals the VRRP child first).
    await()
        .atMost(Duration.ofSeconds(5))
        .pollInterval(Duration.ofMillis(10))
        .until(() -> !Netns.holds(net.a, VIP));
    long released = System.nanoTime();
    Duration took = timeUntilHolds(net.b, VIP, released, Duration.ofSeconds(5));
    System.out.println(
        "SIGTERM of "
            + p.high
            + " master: released after "
            + (released - t0) / 1_000_000
            + " ms, "
            + p.low
            + " holds "
            + VIP
            + " "
            + took.toMillis()
            + " ms later (skew time 609 ms)");
    assertThat(took).isLessThan(PRIORITY_ZERO_TAKEOVER);
    stopper.join(10_000);
    assertThat(Netns.holds(net.a, VIP)).as("the stopped master released it").isFalse();
    assertThat(highR.exitCode()).isZero();
    assertThat(monitor.worstOverlap()).isLessThanOrEqualTo(Duration.ofSeconds(1));
  }

  @ParameterizedTest
  @EnumSource(Pairing.class)
  void nopreemptKeepsTheRunningMasterAndPreemptDelayHoldsTheReturn(Pairing p) throws Exception {
    String low = instance("VI_1", 51, 100, "BACKUP", "", VIP);
    start(p.low, net.b, low);
    awaitHolds(net.b, VIP, START);
    VrrpRouterProcess highR =
        start(p.high, net.a, instance("VI_1", 51, 150, "BACKUP", "  nopreempt\n", VIP));
    // Started, heard the master, stays backup: 5.5 s is past start-up plus a master down interval.
    assertNotHeld(net.a, VIP, Duration.ofMillis(5500));
    assertThat(Netns.holds(net.b, VIP)).isTrue();
    highR.kill9();

    long t0 = System.nanoTime();
    start(p.high, net.a, instance("VI_1", 51, 150, "BACKUP", "  preempt_delay 4\n", VIP));
    Duration took = timeUntilHolds(net.a, VIP, t0, Duration.ofSeconds(20));
    System.out.println(p.high + " with preempt_delay 4 took over after " + took.toMillis() + " ms");
    assertThat(took).as("preempt_delay 4 s from start-up").isGreaterThan(Duration.ofSeconds(4));
    await()
        .atMost(Duration.ofSeconds(3))
        .pollInterval(Duration.ofMillis(20))
        .until(() -> !Netns.holds(net.b, VIP));
  }

  @ParameterizedTest
  @EnumSource(Pairing.class)
  void aWrongAuthPassIsIgnored(Pairing p) throws Exception {
    start(p.low, net.b, instance("VI_1", 51, 100, "BACKUP", auth("right"), VIP));
    awaitHolds(net.b, VIP, START);
    start(p.high, net.a, instance("VI_1", 51, 150, "MASTER", auth("wrong"), VIP));
    // The high router hears nothing it accepts and becomes master too; the low one ignores the
    // higher priority adverts with the wrong password and stays master.
    awaitHolds(net.a, VIP, START);
    await()
        .during(Duration.ofSeconds(3))
        .atMost(Duration.ofSeconds(5))
        .pollInterval(Duration.ofMillis(50))
        .until(() -> Netns.holds(net.b, VIP));
  }

  @ParameterizedTest
  @EnumSource(Pairing.class)
  void unicastPeers(Pairing p) throws Exception {
    String high =
        instance(
            "VI_1",
            51,
            150,
            "MASTER",
            "  unicast_src_ip 10.99.0.1\n  unicast_peer {\n    10.99.0.2\n  }\n",
            VIP);
    String low =
        instance(
            "VI_1",
            51,
            100,
            "BACKUP",
            "  unicast_src_ip 10.99.0.2\n  unicast_peer {\n    10.99.0.1\n  }\n",
            VIP);
    start(p.low, net.b, low);
    VrrpRouterProcess highR = start(p.high, net.a, high);
    awaitHolds(net.a, VIP, START);
    assertNotHeld(net.b, VIP, Duration.ofSeconds(2));
    monitor = Monitor.start(net, VIP);
    long t0 = System.nanoTime();
    highR.kill9();
    Duration took = timeUntilHolds(net.b, VIP, t0, Duration.ofSeconds(10));
    assertThat(took).isLessThanOrEqualTo(MASTER_DOWN_LOW.plus(SLACK));
    assertThat(monitor.worstOverlap()).isLessThanOrEqualTo(Duration.ofSeconds(1));
  }

  @ParameterizedTest
  @EnumSource(Pairing.class)
  void vrrpV3OverIpv6(Pairing p) throws Exception {
    String high = instance("VI_6", 61, 150, "MASTER", "  version 3\n", VIP6);
    String low = instance("VI_6", 61, 100, "BACKUP", "  version 3\n", VIP6);
    start(p.low, net.b, low);
    VrrpRouterProcess highR = start(p.high, net.a, high);
    awaitHolds(net.a, VIP6, START);
    assertNotHeld(net.b, VIP6, Duration.ofSeconds(2));
    monitor = Monitor.start(net, VIP6);
    long t0 = System.nanoTime();
    highR.kill9();
    Duration took = timeUntilHolds(net.b, VIP6, t0, Duration.ofSeconds(10));
    // v3 skew scales with the advert interval: 3 s + 156/256 s here too.
    assertThat(took).isLessThanOrEqualTo(MASTER_DOWN_LOW.plus(SLACK));
    assertThat(monitor.worstOverlap()).isLessThanOrEqualTo(Duration.ofSeconds(1));
  }

  @ParameterizedTest
  @EnumSource(Pairing.class)
  void aFailingTrackScriptWithAWeightMovesMastership(Pairing p) throws Exception {
    Path ok = dir.resolve("ok");
    Files.writeString(ok, "");
    String script =
        "vrrp_script chk {\n  script \"/usr/bin/test -e "
            + ok
            + "\"\n"
            + "  interval 1\n  weight -60\n  fall 1\n  rise 1\n}\n";
    start(p.low, net.b, instance("VI_1", 51, 100, "BACKUP", "", VIP));
    start(
        p.high,
        net.a,
        script + instance("VI_1", 51, 150, "MASTER", "  track_script {\n    chk\n  }\n", VIP));
    awaitHolds(net.a, VIP, START);
    assertNotHeld(net.b, VIP, Duration.ofSeconds(2));
    monitor = Monitor.start(net, VIP);
    Files.delete(ok);
    // 150 - 60 = 90 < 100: the low router preempts within a script interval plus a master down
    // interval.
    awaitHolds(net.b, VIP, Duration.ofSeconds(8));
    await().atMost(Duration.ofSeconds(3)).until(() -> !Netns.holds(net.a, VIP));
    Files.writeString(ok, "");
    awaitHolds(net.a, VIP, Duration.ofSeconds(8));
    assertThat(monitor.worstOverlap()).isLessThanOrEqualTo(Duration.ofSeconds(1));
  }

  @ParameterizedTest
  @EnumSource(Pairing.class)
  void aSyncGroupMovesTogether(Pairing p) throws Exception {
    Path ok = dir.resolve("up");
    Files.writeString(ok, "");
    String script =
        "vrrp_script chk {\n  script \"/usr/bin/test -e " + ok + "\"\n" + "  interval 1\n}\n";
    String group = "vrrp_sync_group G {\n  group {\n    VI_1\n    VI_2\n  }\n}\n";
    start(
        p.low,
        net.b,
        group
            + instance("VI_1", 51, 100, "BACKUP", "", VIP)
            + instance("VI_2", 52, 100, "BACKUP", "", VIP2));
    start(
        p.high,
        net.a,
        script
            + group
            + instance("VI_1", 51, 150, "MASTER", "  track_script {\n    chk\n  }\n", VIP)
            + instance("VI_2", 52, 150, "MASTER", "", VIP2));
    awaitHolds(net.a, VIP, START);
    awaitHolds(net.a, VIP2, Duration.ofSeconds(5));
    Files.delete(ok);
    // VI_1's weight 0 script fails: VI_1 goes to FAULT and takes VI_2 with it, although
    // nothing is wrong with VI_2 itself.
    awaitHolds(net.b, VIP, Duration.ofSeconds(8));
    awaitHolds(net.b, VIP2, Duration.ofSeconds(8));
    // A sends its priority-0 advert before it deletes the address, so B may add VIP2 first.
    await().atMost(Duration.ofSeconds(3)).until(() -> !Netns.holds(net.a, VIP2));
  }

  @Test
  void theUserspaceProxyListensOnTheAddressBeforeItHoldsItAndServesAfterFailover()
      throws Exception {
    // A backend in B; B runs fairway run --userspace as the VRRP backup with a virtual server on
    // the virtual address (IP_FREEBIND: it listens although the address is A's); A is keepalived.
    Process backend =
        new ProcessBuilder(
                "ip",
                "netns",
                "exec",
                net.b,
                "/usr/bin/python3",
                "-m",
                "http.server",
                "--bind",
                "10.99.0.2",
                "8081")
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("backend.log").toFile())
            .start();
    try {
      String vs =
          "virtual_server "
              + VIP
              + " 8080 {\n  delay_loop 1\n  lb_algo rr\n"
              + "  lb_kind PROXY\n  protocol TCP\n  real_server 10.99.0.2 8081 {\n    weight 1\n"
              + "    TCP_CHECK {\n      connect_timeout 1\n    }\n  }\n}\n";
      VrrpRouterProcess high =
          start(Kind.KEEPALIVED, net.a, instance("VI_1", 51, 150, "MASTER", "", VIP));
      awaitHolds(net.a, VIP, Duration.ofSeconds(10));
      VrrpRouterProcess low =
          start(
              Kind.FAIRWAY,
              net.b,
              vs + instance("VI_1", 51, 100, "BACKUP", "", VIP),
              "--userspace");
      await()
          .atMost(Duration.ofSeconds(20))
          .pollInterval(Duration.ofMillis(100))
          .until(() -> low.logText().contains("listening on"));
      assertThat(low.alive()).isTrue();
      assertThat(Netns.holds(net.b, VIP)).isFalse();
      high.kill9();
      long t0 = System.nanoTime();
      // How soon is the benchmark's (bench/vrrp-failover.sh); here that it serves at all: beside
      // another suite the first answers through B's cold proxy came after more than 3 s.
      await()
          .atMost(MASTER_DOWN_LOW.plusSeconds(30))
          .pollInterval(Duration.ofMillis(50))
          .until(() -> curl(net.a, "http://" + VIP + ":8080/"));
      System.out.println(
          "userspace proxy in B served "
              + VIP
              + " "
              + (System.nanoTime() - t0) / 1_000_000
              + " ms after the master was killed");
      assertThat(low.logText()).doesNotContain("cannot listen");
    } finally {
      backend.destroyForcibly().waitFor();
    }
  }

  @Test
  void aTrackedInterfaceGoingDownIsAFaultAndThePeerTakesOver() throws Exception {
    Netns.sh(
        "ip", "-n", net.a, "link", "add", "fwvtrk0", "type", "veth", "peer", "name", "fwvtrk1");
    Netns.sh("ip", "-n", net.a, "link", "set", "fwvtrk1", "up");
    Netns.sh("ip", "-n", net.a, "link", "set", "fwvtrk0", "up");
    Path notify = dir.resolve("fault.log");
    Path script = notifyScript("fault", notify);
    start(Kind.KEEPALIVED, net.b, instance("VI_1", 51, 100, "BACKUP", "", VIP));
    start(
        Kind.FAIRWAY,
        net.a,
        instance(
            "VI_1",
            51,
            150,
            "MASTER",
            "  track_interface {\n    fwvtrk0\n  }\n  notify " + script + "\n",
            VIP));
    awaitHolds(net.a, VIP, START);
    Netns.sh("ip", "-n", net.a, "link", "set", "fwvtrk0", "down");
    // FAULT sends priority 0 on the way out: the peer takes over after its skew time.
    awaitHolds(net.b, VIP, Duration.ofSeconds(3));
    await().atMost(Duration.ofSeconds(2)).until(() -> !Netns.holds(net.a, VIP));
    await()
        .atMost(Duration.ofSeconds(3))
        .until(() -> Files.readString(notify).contains("INSTANCE VI_1 FAULT 150"));
    Netns.sh("ip", "-n", net.a, "link", "set", "fwvtrk0", "up");
    awaitHolds(net.a, VIP, Duration.ofSeconds(8));
  }

  @Test
  void aVirtualAddressOnAnotherInterfaceIsAFileLineError() throws Exception {
    // It never runs: started without waiting for a state.
    VrrpRouterProcess r =
        super.start(
            Kind.FAIRWAY, net.a, globals() + instance("VI_1", 51, 150, "MASTER", "", "127.0.0.1"));
    await().atMost(Duration.ofSeconds(20)).until(() -> !r.alive());
    assertThat(r.exitCode()).isEqualTo(1);
    assertThat(r.logText())
        .containsPattern(
            "fairway: .*\\.conf:12: vrrp_instance VI_1: 127\\.0\\.0\\.1 is already on interface lo");
  }

  static boolean curl(String ns, String url) {
    try {
      Process p =
          new ProcessBuilder(
                  "ip",
                  "netns",
                  "exec",
                  ns,
                  "curl",
                  "-s",
                  "-o",
                  "/dev/null",
                  "-w",
                  "%{http_code}",
                  "--max-time",
                  "1",
                  url)
              .start();
      String code = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      p.waitFor();
      return code.equals("200");
    } catch (Exception e) {
      return false;
    }
  }

  @Test
  void notifyScriptsGetKeepalivedsArgumentsInItsOrder() throws Exception {
    List<List<String>> runs = new ArrayList<>();
    for (Kind k : Kind.values()) {
      Path out = dir.resolve("notify-" + k + ".log");
      Path script = notifyScript("notify-" + k, out);
      String extra =
          "  notify_master \""
              + script
              + " master\"\n"
              + "  notify_backup \""
              + script
              + " backup\"\n"
              + "  notify_stop \""
              + script
              + " stop\"\n"
              + "  notify "
              + script
              + "\n";
      VrrpRouterProcess r = start(k, net.a, instance("VI_1", 51, 150, "MASTER", extra, VIP));
      awaitHolds(net.a, VIP, START);
      await()
          .atMost(Duration.ofSeconds(5))
          .until(() -> Files.exists(out) && Files.readAllLines(out).size() >= 4);
      r.term();
      await().atMost(Duration.ofSeconds(5)).until(() -> Files.readAllLines(out).size() >= 6);
      runs.add(Files.readAllLines(out));
    }
    System.out.println("notify lines: keepalived " + runs.get(1) + ", fairway " + runs.get(0));
    // The state's own script and the generic one start together, so their lines may swap; the
    // states come in keepalived's order.
    for (List<String> lines : runs) {
      assertThat(lines.subList(0, 2))
          .containsExactlyInAnyOrder("backup", "INSTANCE VI_1 BACKUP 150");
      assertThat(lines.subList(2, 4))
          .containsExactlyInAnyOrder("master", "INSTANCE VI_1 MASTER 150");
      assertThat(lines.subList(4, 6)).containsExactlyInAnyOrder("stop", "INSTANCE VI_1 STOP 150");
    }
    assertThat(runs.get(0)).containsExactlyInAnyOrderElementsOf(runs.get(1));
  }
}
