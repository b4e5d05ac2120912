package io.fairway.cli;

import static io.fairway.cli.VrrpInteropTest.instance;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.fairway.cli.VrrpRouterProcess.Kind;
import io.fairway.daemon.Json;
import io.fairway.daemon.Promtool;
import io.fairway.testkit.ExternalPrograms;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * VRRP on the operator surface, reload and failover, on one set-up shared by the tests in order
 * (one namespace set-up and two JVM starts for all of them): two routers A (priority 150) and B
 * (100) in namespaces on one bridge ({@link BridgedNetns}), each running {@code fairway run
 * --userspace} with the same virtual server on the VRRP address, forwarding to an nginx in the
 * client namespace C.
 *
 * <ol>
 *   <li>the runtime API's {@code /api/v1/vrrp}, {@code fairway status --vrrp}, the {@code
 *       fairway_vrrp_*} metrics (promtool) on both routers;
 *   <li>SIGHUP reloads applied by difference: a changed instance keeps its state (no transition,
 *       the peer never takes the address), an added one elects, an invalid one is refused with
 *       everything running, a removed master hands over with priority 0; the transitions on the
 *       event stream;
 *   <li>under a bounded {@code wrk} from C, A is killed (-9): B takes over within its master down
 *       interval of A's last advert (as B's interface received it), adds the address and sends the
 *       gratuitous ARP within a centisecond, and the client's next new connection succeeds; each
 *       piece is timed from B's interface ({@code capture.py}), B's event stream and log, {@code ip
 *       monitor} and the probe, and printed with the failed requests.
 * </ol>
 */
@Tag("netns")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class VrrpOpsTest {
  static final String VIP = VrrpInteropTest.VIP;
  static final String VIP2 = VrrpInteropTest.VIP2;
  static final String VIP3 = "10.99.0.102";
  static final String ADMIN = "http://127.0.0.1:9107";
  static final Path PYTHON = Path.of("/usr/bin/python3");
  static final Path NGINX = Path.of("/usr/sbin/nginx");
  static final Path WRK = Path.of("/usr/bin/wrk");

  Path dir;
  BridgedNetns net;
  VrrpRouterProcess a;
  VrrpRouterProcess b;
  Process nginx;
  final List<Process> followers = new ArrayList<>();
  VrrpLab.Monitor monitor;
  long started;

  @BeforeAll
  void setUp() throws Exception {
    started = System.nanoTime();
    Netns.assumeAvailable();
    for (Path p : List.of(PYTHON, NGINX, WRK, Path.of("/usr/bin/curl"))) {
      ExternalPrograms.require(p.getFileName().toString(), p.toString());
    }
    dir = Files.createTempDirectory("vrrpops-");
    net = BridgedNetns.create();
    nginx = startNginx();
    for (String side : List.of("a", "b")) {
      Path token = dir.resolve("token-" + side);
      Files.writeString(token, "vrrpops-test-token-" + side + "\n");
      token.toFile().setReadable(false, false);
      token.toFile().setReadable(true, true);
    }
    b = VrrpRouterProcess.start(Kind.FAIRWAY, net.b, dir, configB(false), args("b"));
    a = VrrpRouterProcess.start(Kind.FAIRWAY, net.a, dir, configA(false, false, false), args("a"));
    await()
        .atMost(VrrpInteropTest.START)
        .pollInterval(Duration.ofMillis(50))
        .until(() -> Netns.holds(net.a, VIP));
    for (String ns : List.of(net.a, net.b)) {
      await()
          .atMost(VrrpInteropTest.START)
          .pollInterval(Duration.ofMillis(200))
          .until(() -> vrrp(ns) != null);
      followers.add(follow(ns));
    }
    monitor = VrrpLab.Monitor.start(net.routers(), VIP);
    System.out.println("set-up took " + (System.nanoTime() - started) / 1_000_000 + " ms");
  }

  @AfterAll
  void tearDown() throws Exception {
    if (monitor != null) {
      monitor.stop();
    }
    for (Process p : followers) {
      p.destroyForcibly();
    }
    for (VrrpRouterProcess r : new VrrpRouterProcess[] {a, b}) {
      if (r != null) {
        r.close();
        System.out.println("--- " + r.ns + "\n" + r.logText());
      }
    }
    if (nginx != null) {
      nginx.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
    }
    if (net != null) {
      net.close();
    }
    if (dir != null) {
      try (var files = Files.walk(dir)) {
        files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
      }
    }
    System.out.println("VrrpOpsTest took " + (System.nanoTime() - started) / 1_000_000 + " ms");
  }

  // --- configuration ---------------------------------------------------------------------------

  /** Each router's admin listener on its own namespace's loopback, with a token file of its own. */
  String[] args(String side) {
    return new String[] {
      "--userspace",
      "--grace-period",
      "0",
      "--admin",
      "127.0.0.1:9107",
      "--admin-token-file",
      dir.resolve("token-" + side).toString()
    };
  }

  static String virtualServer() {
    return "virtual_server "
        + VIP
        + " 8080 {\n  delay_loop 1\n  lb_algo rr\n  lb_kind PROXY\n"
        + "  protocol TCP\n  real_server 10.99.0.3 8081 {\n    weight 1\n"
        + "    TCP_CHECK {\n      connect_timeout 1\n    }\n  }\n}\n";
  }

  static String configA(boolean excluded, boolean vi2, boolean broken) {
    String vi1 =
        instance(
            "VI_1",
            51,
            150,
            "MASTER",
            excluded ? "  virtual_ipaddress_excluded {\n    " + VIP3 + "/24\n  }\n" : "",
            VIP);
    return VrrpInteropTest.globals()
        + virtualServer()
        + vi1
        + (vi2 ? instance("VI_2", 52, 150, "MASTER", "", VIP2) : "")
        + (broken
            ? instance("VI_3", 53, 150, "MASTER", "", "10.99.0.103")
                .replace("interface eth0", "interface nosuch0")
            : "");
  }

  static String configB(boolean reloaded) {
    return VrrpInteropTest.globals()
        + virtualServer()
        + instance("VI_1", 51, reloaded ? 110 : 100, "BACKUP", "", VIP)
        + (reloaded ? instance("VI_2", 52, 100, "BACKUP", "", VIP2) : "");
  }

  /** Rewrites the router's file and sends SIGHUP. */
  void reload(VrrpRouterProcess r, String config) throws IOException {
    Files.writeString(r.config(), config);
    r.hup();
  }

  // --- the admin API from inside a namespace ---------------------------------------------------

  static @Nullable String curl(String ns, String path) {
    try {
      // Not a timing claim: the first request to a JVM that has not served one yet loads the
      // admin listener's classes, which took more than 2 s beside another suite (2026-12-02).
      // While nothing listens, curl is refused at once.
      Process p =
          new ProcessBuilder(
                  "ip", "netns", "exec", ns, "curl", "-sf", "--max-time", "15", ADMIN + path)
              .start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      return p.waitFor() == 0 ? out : null;
    } catch (IOException | InterruptedException e) {
      return null;
    }
  }

  /** {@code GET /api/v1/vrrp} in {@code ns}, or null while nothing answers. */
  static @Nullable JsonNode vrrp(String ns) throws IOException {
    String body = curl(ns, "/api/v1/vrrp");
    if (body == null) {
      return null;
    }
    JsonNode n = Json.mapper().readTree(body);
    return n.path("instances").isEmpty() ? null : n;
  }

  /** {@link #instanceIn} of an instance the test saw running. */
  static JsonNode running(String ns, String name) throws IOException {
    return Objects.requireNonNull(instanceIn(ns, name), "the test saw it running");
  }

  static @Nullable JsonNode instanceIn(String ns, String name) throws IOException {
    JsonNode all = vrrp(ns);
    if (all == null) {
      return null;
    }
    for (JsonNode i : all.get("instances")) {
      if (i.get("name").asText().equals(name)) {
        return i;
      }
    }
    return null;
  }

  Process follow(String ns) throws IOException {
    return new ProcessBuilder(
            "ip", "netns", "exec", ns, "curl", "-sN", "--max-time", "600", ADMIN + "/api/v1/events")
        .redirectErrorStream(true)
        .redirectOutput(dir.resolve("events-" + ns + ".txt").toFile())
        .start();
  }

  String events(String ns) {
    try {
      return Files.readString(dir.resolve("events-" + ns + ".txt"));
    } catch (IOException e) {
      return "";
    }
  }

  // --- 1. status, JSON, metrics ----------------------------------------------------------------

  @Test
  @Order(1)
  void statusJsonAndMetricsShowEachInstance() throws Exception {
    long t = System.nanoTime();
    await()
        .atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(200))
        .until(
            () -> {
              JsonNode ia = instanceIn(net.a, "VI_1");
              JsonNode ib = instanceIn(net.b, "VI_1");
              return ia != null
                  && ib != null
                  && ia.get("state").asText().equals("master")
                  && ib.get("state").asText().equals("backup")
                  && ib.get("adverts_received").asLong() > 0
                  && "10.99.0.1".equals(ib.path("master").asText());
            });
    JsonNode ia = running(net.a, "VI_1");
    assertThat(ia.get("priority").asInt()).isEqualTo(150);
    assertThat(ia.get("master").asText()).isEqualTo("10.99.0.1");
    assertThat(ia.get("interface_name").asText()).isEqualTo("eth0");
    assertThat(ia.get("virtual_router_id").asInt()).isEqualTo(51);
    assertThat(ia.get("adverts_sent").asLong()).isPositive();
    assertThat(ia.get("transitions").get("master").asLong()).isEqualTo(1);
    assertThat(java.time.Instant.parse(ia.get("since").asText())).isBefore(java.time.Instant.now());
    JsonNode ib = running(net.b, "VI_1");
    assertThat(ib.get("master_priority").asInt()).isEqualTo(150);
    assertThat(ib.get("priority").asInt()).isEqualTo(100);

    String metricsA = Objects.requireNonNull(curl(net.a, "/metrics"), "A's admin answers");
    assertThat(metricsA)
        .contains("fairway_vrrp_state{instance=\"VI_1\",state=\"master\"} 1")
        .contains("fairway_vrrp_state{instance=\"VI_1\",state=\"backup\"} 0")
        .contains("fairway_vrrp_priority{instance=\"VI_1\"} 150")
        .contains("fairway_vrrp_transitions_total{instance=\"VI_1\",to=\"master\"} 1")
        .contains("fairway_vrrp_errors_total{kind=\"checksum\"} 0")
        .containsPattern("fairway_vrrp_adverts_sent_total\\{instance=\"VI_1\"} [1-9]");
    Promtool.assertClean(metricsA, dir);
    String metricsB = Objects.requireNonNull(curl(net.b, "/metrics"), "B's admin answers");
    assertThat(metricsB)
        .contains("fairway_vrrp_state{instance=\"VI_1\",state=\"backup\"} 1")
        .containsPattern("fairway_vrrp_adverts_received_total\\{instance=\"VI_1\"} [1-9]");
    Promtool.assertClean(metricsB, dir);

    JsonNode viaCli = Json.mapper().readTree(cli(net.b, "status", "--vrrp"));
    assertThat(viaCli.get("instances").get(0).get("state").asText()).isEqualTo("backup");
    assertThat(viaCli.get("errors").has("ttl")).isTrue();
    // The text status: the table, then one line per instance.
    String text = cli(net.a, "status");
    assertThat(text).contains("TCP  " + VIP + ":8080");
    assertThat(text.lines())
        .anyMatch(l -> l.matches("VI_1 +eth0 +51 +MASTER +150 +10\\.99\\.0\\.1 +20\\d\\d-.*Z"));
    System.out.println("status/JSON/metrics took " + (System.nanoTime() - t) / 1_000_000 + " ms");
  }

  /** {@code fairway ARGS} against the router in {@code ns}. */
  static String cli(String ns, String... args) throws IOException {
    String cp =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    List<String> cmd =
        new ArrayList<>(
            List.of(
                "ip",
                "netns",
                "exec",
                ns,
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1",
                "-cp",
                cp,
                "io.fairway.cli.Main"));
    cmd.addAll(List.of(args));
    return Netns.sh(cmd.toArray(String[]::new));
  }

  // --- 2. reload by difference -----------------------------------------------------------------

  @Test
  @Order(2)
  void aReloadAppliesByDifference() throws Exception {
    long t = System.nanoTime();
    int eventsBefore = events(net.a).length();
    JsonNode a1 = running(net.a, "VI_1");
    JsonNode b1 = running(net.b, "VI_1");

    // B: VI_1's priority changes (it stays backup, its election timer runs on), VI_2 is added
    // and, with no peer for it yet, becomes master.
    reload(b, configB(true));
    await()
        .atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> Netns.holds(net.b, VIP2));
    JsonNode b2 = running(net.b, "VI_1");
    assertThat(b2.get("priority").asInt()).isEqualTo(110);
    assertThat(b2.get("state").asText()).isEqualTo("backup");
    assertThat(b2.get("since").asText())
        .as("VI_1 kept its state")
        .isEqualTo(b1.get("since").asText());
    assertThat(b2.get("transitions")).isEqualTo(b1.get("transitions"));

    // A: VI_1 gets an excluded address (held at once, no transition); VI_2 is added with a higher
    // priority and preempts B.
    reload(a, configA(true, true, false));
    await()
        .atMost(Duration.ofSeconds(3))
        .pollInterval(Duration.ofMillis(50))
        .until(() -> Netns.holds(net.a, VIP3));
    await()
        .atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(50))
        .until(() -> Netns.holds(net.a, VIP2) && !Netns.holds(net.b, VIP2));
    JsonNode a2 = running(net.a, "VI_1");
    assertThat(a2.get("since").asText()).isEqualTo(a1.get("since").asText());
    assertThat(a2.get("transitions")).isEqualTo(a1.get("transitions"));
    assertThat(a2.get("virtual_addresses").toString()).contains(VIP3);

    // An invalid reload is refused whole: VI_3's interface does not exist.
    reload(a, configA(true, true, true));
    await()
        .atMost(Duration.ofSeconds(5))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> a.logText().contains("reload refused"));
    assertThat(a.logText())
        .containsPattern(
            "reload refused, still running the previous configuration: .*\\.conf:\\d+: vrrp_instance"
                + " VI_3: interface nosuch0 does not exist");
    assertThat(instanceIn(net.a, "VI_3")).isNull();
    assertThat(Netns.holds(net.a, VIP2) && Netns.holds(net.a, VIP3) && Netns.holds(net.a, VIP))
        .isTrue();
    await().atMost(Duration.ofSeconds(3)).until(() -> events(net.a).contains("reload_refused"));

    // VI_2 removed from A, its master: priority 0, and B takes it after its skew time.
    reload(a, configA(true, false, false));
    await()
        .atMost(Duration.ofSeconds(5))
        .pollInterval(Duration.ofMillis(10))
        .until(() -> !Netns.holds(net.a, VIP2));
    long released = System.nanoTime();
    await()
        .atMost(Duration.ofSeconds(3))
        .pollInterval(Duration.ofMillis(10))
        .until(() -> Netns.holds(net.b, VIP2));
    Duration handOver = Duration.ofNanos(System.nanoTime() - released);
    System.out.println(
        "reload removed A's VI_2: B holds "
            + VIP2
            + " "
            + handOver.toMillis()
            + " ms after A released it (skew time 609 ms)");
    // Priority 0 honoured: before B's master down timer could have fired (see
    // VrrpInteropTest.PRIORITY_ZERO_TAKEOVER); the milliseconds are the wire test's below.
    assertThat(handOver).isLessThan(MASTER_DOWN_B.minusSeconds(1));
    JsonNode a3 = running(net.a, "VI_1");
    assertThat(a3.get("since").asText()).isEqualTo(a1.get("since").asText());
    assertThat(instanceIn(net.a, "VI_2")).isNull();

    assertThat(Netns.holds(net.b, VIP)).as("B never took VI_1").isFalse();
    assertThat(monitor.worstOverlap()).isZero();
    await().atMost(Duration.ofSeconds(3)).until(() -> events(net.a).contains("event: vrrp_stop"));
    String ea = events(net.a).substring(eventsBefore);
    assertThat(ea)
        .contains("event: vrrp_master\ndata: {\"time\"")
        .contains("\"instance\":\"VI_2\",\"sync_group\":null,\"from\":\"backup\",\"to\":\"master\"")
        .contains("\"instance\":\"VI_2\",\"sync_group\":null,\"from\":\"master\",\"to\":\"stop\"")
        .doesNotContain("\"instance\":\"VI_1\"");
    assertThat(events(net.b))
        .contains(
            "\"instance\":\"VI_2\",\"sync_group\":null,\"from\":\"master\",\"to\":\"backup\"");
    System.out.println("reload scenarios took " + (System.nanoTime() - t) / 1_000_000 + " ms");
  }

  // --- 3. through a failover -------------------------------------------------------------------

  /** B's master down interval at priority 110: 3 x 1 s + (256 - 110) / 256 s. */
  static final Duration MASTER_DOWN_B = Duration.ofMillis(3000 + (256 - 110) * 1000 / 256);

  /** How often the probe starts a new connection (its attempts overlap, see probe.py). */
  static final Duration PROBE = Duration.ofMillis(20);

  /**
   * The protocol's resolution: VRRPv3 carries the advert interval in centiseconds (1/100 of the 1 s
   * advert_int here), and the timers are on time within it.
   */
  static final Duration CENTISECOND = Duration.ofSeconds(1).dividedBy(100);

  /**
   * How late a thread of a JVM at nice 10 may run beside another suite on this 2-core machine: B
   * took over 64 ms past its master down interval at load 24 (2026-12-02). Being late is the
   * machine's; being early would be Fairway's, so the lower bound stays at the protocol's
   * resolution. The milliseconds on a quiet machine, next to keepalived's, are
   * bench/vrrp-failover.sh's (docs/benchmarks.md).
   */
  static final Duration SCHEDULING = Duration.ofMillis(250);

  @Test
  @Order(3)
  void newConnectionsSucceedAgainWithinTheMasterDownIntervalUnderWrk() throws Exception {
    long t = System.nanoTime();
    assertThat(Netns.holds(net.a, VIP)).isTrue();
    // What B's interface sees, with kernel timestamps, and when B's addresses change.
    Path captureOut = dir.resolve("capture-b.txt");
    Path captureScript = dir.resolve("capture.py");
    try (var in = VrrpOpsTest.class.getResourceAsStream("/vrrp/capture.py")) {
      Files.write(captureScript, in.readAllBytes());
    }
    Process capture =
        new ProcessBuilder(
                "ip",
                "netns",
                "exec",
                net.b,
                PYTHON.toString(),
                captureScript.toString(),
                "eth0",
                "16",
                captureOut.toString(),
                "8080,8081")
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("capture.log").toFile())
            .start();
    Path monitorOut = dir.resolve("monitor-b.txt");
    Process addresses =
        new ProcessBuilder("ip", "-ts", "-o", "-n", net.b, "monitor", "address")
            .redirectErrorStream(true)
            .redirectOutput(monitorOut.toFile())
            .start();
    // Listening, and A's adverts seen: the timeline counts from A's last advert before the kill,
    // and on an idle machine the probe's warm-up below can take less than an advert interval
    // (CI once killed A before the capture had seen any).
    await()
        .atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(20))
        .until(
            () ->
                Files.exists(captureOut)
                    && Files.readString(captureOut).contains(" in vrrp 10.99.0.1 "));
    Path probeOut = dir.resolve("probe.txt");
    Path script = dir.resolve("probe.py");
    try (var in = VrrpOpsTest.class.getResourceAsStream("/vrrp/probe.py")) {
      Files.write(script, in.readAllBytes());
    }
    Process probe =
        new ProcessBuilder(
                "ip",
                "netns",
                "exec",
                net.c,
                PYTHON.toString(),
                script.toString(),
                VIP,
                "8080",
                "12",
                probeOut.toString())
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("probe.log").toFile())
            .start();
    Process wrk =
        new ProcessBuilder(
                "ip",
                "netns",
                "exec",
                net.c,
                WRK.toString(),
                "-t2",
                "-c16",
                "-d12s",
                "--timeout",
                "2s",
                "http://" + VIP + ":8080/")
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("wrk.txt").toFile())
            .start();
    // Kill once the probe has seen the service answer for a while.
    await()
        .atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(50))
        .until(
            () ->
                Files.exists(probeOut)
                    && Files.readAllLines(probeOut).stream().filter(l -> l.contains(" ok ")).count()
                        >= 40);
    long listing = System.currentTimeMillis();
    long killedAt = a.kill9();
    assertThat(probe.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(wrk.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(capture.waitFor(30, TimeUnit.SECONDS)).isTrue();
    addresses.destroy();
    addresses.waitFor(5, TimeUnit.SECONDS);
    FailoverTimeline tl =
        FailoverTimeline.of(
            killedAt,
            "10.99.0.1",
            "10.99.0.2",
            51,
            VIP,
            "VI_1",
            "10.99.0.3:8081",
            Files.readAllLines(captureOut),
            Files.readAllLines(monitorOut),
            events(net.b),
            b.logText(),
            Files.readAllLines(probeOut));
    System.out.println(
        "failover breakdown (ms; listing A's processes took "
            + (killedAt - listing)
            + " ms before the kill; load "
            + Files.readString(Path.of("/proc/loadavg")).trim()
            + "):\n"
            + tl.report());

    Failover f = Failover.of(Files.readAllLines(probeOut), killedAt);
    Wrk w = Wrk.parse(Files.readString(dir.resolve("wrk.txt")));
    System.out.println(
        "failover under wrk (kill -9 of A at +0): wrk "
            + w.requests
            + " requests, "
            + w.failed()
            + " failed (connect "
            + w.connect
            + ", read "
            + w.read
            + ", write "
            + w.write
            + ", timeout "
            + w.timeout
            + ", non-2xx "
            + w.non2xx
            + "); new"
            + " connections failed from +"
            + f.firstFail
            + " ms to +"
            + f.lastFail
            + " ms ("
            + f.failures
            + " of "
            + f.attempts
            + " probes), succeed again from +"
            + f.recovered
            + " ms; master down interval "
            + MASTER_DOWN_B.toMillis()
            + " ms");
    assertThat(f.failures).as("the kill was seen").isPositive();
    assertThat(f.okAfter).as("served after the failover").isGreaterThan(10);
    // Fairway's part, each piece from B's own interface and clock: the takeover counts from A's
    // last advert as B received it (the kill comes up to one advert interval after it), then the
    // address and the gratuitous ARP.
    Duration takeover = Duration.ofNanos((tl.takeover() - tl.lastAdvert()) * 1000);
    assertThat(takeover)
        .as("B takes over the master down interval after A's last advert\n" + tl.report())
        .isBetween(MASTER_DOWN_B.minus(CENTISECOND), MASTER_DOWN_B.plus(SCHEDULING));
    assertThat(tl.garp()).as("B announces the address after taking over").isGreaterThan(0);
    assertThat(Duration.ofNanos((tl.garp() - tl.takeover()) * 1000))
        .as("the address and its gratuitous ARP follow the takeover\n" + tl.report())
        .isLessThanOrEqualTo(SCHEDULING);
    // The client's part: the probe's next attempt after the ARP reaches B (its SYN-ACK on the
    // wire). How soon the answers through B's proxy are back is the machine's as much as
    // Fairway's: under wrk beside another suite, attempts that had connected timed out awaiting
    // the answer for 3.6 s more (2026-12-02); f.okAfter says that they come back, the benchmark
    // how soon on a quiet machine.
    assertThat(tl.synAck()).as("B answers a SYN for the address\n" + tl.report()).isGreaterThan(0);
    assertThat(Duration.ofNanos((tl.synAck() - tl.garp()) * 1000))
        .as("new connections reach B from the probe's next attempt after the ARP\n" + tl.report())
        .isLessThanOrEqualTo(PROBE.plus(SCHEDULING));
    System.out.println(
        "new connections succeed again "
            + FailoverTimeline.ms(tl.probeOk(), tl.lastAdvert())
            + " ms after A's last advert (bound: master down "
            + MASTER_DOWN_B.toMillis()
            + " ms + 3 x 10 ms + the probe's "
            + PROBE.toMillis()
            + " ms), "
            + FailoverTimeline.ms(tl.probeOk(), tl.killed())
            + " ms after the kill; the first answer took "
            + (tl.probeOkEnd() - tl.probeOk()) / 1000
            + " ms");
    assertThat(w.requests).isPositive();
    assertThat(Netns.holds(net.b, VIP)).isTrue();
    System.out.println("failover scenario took " + (System.nanoTime() - t) / 1_000_000 + " ms");
  }

  /**
   * The probe's lines around a kill at {@code killedAt} (epoch ms), in ms after it (the lines come
   * in the order the attempts ended; they are taken in the order they started).
   */
  record Failover(
      int attempts, int failures, long firstFail, long lastFail, long recovered, int okAfter) {
    static Failover of(List<String> lines, long killedAt) {
      int attempts = 0;
      int failures = 0;
      long firstFail = -1;
      long lastFail = -1;
      List<long[]> all = new ArrayList<>();
      for (String l : lines) {
        String[] f = l.split(" ");
        if (f.length < 2) {
          continue;
        }
        all.add(new long[] {Long.parseLong(f[0]) - killedAt, f[1].equals("ok") ? 1 : 0});
      }
      all.sort(java.util.Comparator.comparingLong(a -> a[0]));
      for (long[] a : all) {
        attempts++;
        if (a[1] == 0) {
          failures++;
          firstFail = firstFail < 0 ? a[0] : firstFail;
          lastFail = a[0];
        }
      }
      long recovered = -1;
      int okAfter = 0;
      for (long[] a : all) {
        if (a[0] > lastFail && a[1] == 1) {
          recovered = recovered < 0 ? a[0] : recovered;
          okAfter++;
        }
      }
      return new Failover(attempts, failures, firstFail, lastFail, recovered, okAfter);
    }
  }

  /** wrk's summary. */
  record Wrk(long requests, long connect, long read, long write, long timeout, long non2xx) {
    long failed() {
      return connect + read + write + timeout + non2xx;
    }

    static Wrk parse(String out) {
      Matcher req = Pattern.compile("(\\d+) requests in").matcher(out);
      Matcher err =
          Pattern.compile(
                  "Socket errors: connect (\\d+), read (\\d+), write (\\d+), timeout (\\d+)")
              .matcher(out);
      Matcher non = Pattern.compile("Non-2xx or 3xx responses: (\\d+)").matcher(out);
      boolean e = err.find();
      return new Wrk(
          req.find() ? Long.parseLong(req.group(1)) : 0,
          e ? Long.parseLong(err.group(1)) : 0,
          e ? Long.parseLong(err.group(2)) : 0,
          e ? Long.parseLong(err.group(3)) : 0,
          e ? Long.parseLong(err.group(4)) : 0,
          non.find() ? Long.parseLong(non.group(1)) : 0);
    }
  }

  // --- the backend -----------------------------------------------------------------------------

  Process startNginx() throws IOException {
    Path n = Files.createDirectories(dir.resolve("nginx/logs"));
    Path root = Objects.requireNonNull(n.getParent(), "nginx/logs is under nginx");
    String conf =
        "worker_processes 1;\nerror_log "
            + n
            + "/error.log warn;\npid "
            + root
            + "/nginx.pid;\nevents { worker_connections 1024; }\nhttp {\n  access_log off;\n"
            + "  client_body_temp_path "
            + root
            + "/body; proxy_temp_path "
            + root
            + "/proxy;\n"
            + "  fastcgi_temp_path "
            + root
            + "/fcgi; uwsgi_temp_path "
            + root
            + "/uwsgi;"
            + " scgi_temp_path "
            + root
            + "/scgi;\n"
            + "  server {\n    listen 10.99.0.3:8081;\n    location / { return 200 \"ok\\n\"; }\n  }\n"
            + "}\n";
    Path file = root.resolve("nginx.conf");
    Files.writeString(file, conf);
    return new ProcessBuilder(
            "ip",
            "netns",
            "exec",
            net.c,
            NGINX.toString(),
            "-p",
            root.toString(),
            "-c",
            file.toString(),
            "-g",
            "daemon off;")
        .redirectErrorStream(true)
        .redirectOutput(root.resolve("stdout.log").toFile())
        .start();
  }
}
