package io.fairway.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fairway.cli.VrrpRouterProcess.Kind;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Issue #31: adverts from a source no router can have, sent from the peer namespace as whole
 * Ethernet frames with the right password and priority 255, to a master that must stay master:
 * Fairway drops and counts each by kind, and counts packets the kernel dropped from its full VRRP
 * socket; keepalived 2.2.7 gets the same packets and what it does is recorded (docs/vrrp.md,
 * "Adverts Fairway drops").
 */
@Tag("netns")
class VrrpAdvertSourceTest extends VrrpLab {
  static final String VIP = VrrpInteropTest.VIP;
  static final String ADMIN = "http://127.0.0.1:9107";
  static final Path PYTHON = Path.of("/usr/bin/python3");

  /** Each bad source and the counter kind Fairway gives it (A's eth0 is 10.99.0.1/24). */
  static final Map<String, String> SOURCES = new LinkedHashMap<>();

  static {
    SOURCES.put("0.0.0.0", "source_unspecified");
    SOURCES.put("224.0.0.5", "source_multicast");
    SOURCES.put("255.255.255.255", "source_broadcast");
    SOURCES.put("10.99.0.255", "source_broadcast");
    SOURCES.put("10.99.0.1", "source_ours");
  }

  Path advert;

  @BeforeAll
  static void python() {
    io.fairway.testkit.ExternalPrograms.require("python3", PYTHON.toString());
    io.fairway.testkit.ExternalPrograms.require("curl", "/usr/bin/curl");
  }

  @BeforeEach
  void script() throws Exception {
    advert = dir.resolve("advert.py");
    try (InputStream in = getClass().getResourceAsStream("/vrrp/advert.py")) {
      Files.copy(in, advert);
    }
  }

  /** Sends {@code count} adverts from net.b's eth0 with {@code source} as their IP source. */
  void send(String source, int vrid, String password, int count) throws Exception {
    Netns.sh(
        "ip",
        "netns",
        "exec",
        net.b,
        PYTHON.toString(),
        advert.toString(),
        "eth0",
        source,
        Integer.toString(vrid),
        "255",
        password,
        VIP,
        Integer.toString(count));
  }

  VrrpRouterProcess master(Kind kind) throws Exception {
    VrrpRouterProcess r =
        start(
            kind,
            net.a,
            VrrpInteropTest.globals()
                + VrrpInteropTest.instance(
                    "VI_1", 51, 150, "MASTER", VrrpInteropTest.auth("right"), VIP),
            "--admin",
            "127.0.0.1:9107");
    awaitRunning(r);
    awaitHolds(net.a, VIP, VrrpInteropTest.START);
    return r;
  }

  String metrics() throws Exception {
    return Netns.sh("ip", "netns", "exec", net.a, "curl", "-sS", "-m", "10", ADMIN + "/metrics");
  }

  static long value(String metrics, String series) {
    Matcher m =
        Pattern.compile("(?m)^" + Pattern.quote(series) + " ([0-9.eE+]+)$").matcher(metrics);
    return m.find() ? (long) Double.parseDouble(m.group(1)) : -1;
  }

  static long errors(String metrics, String kind) {
    return value(metrics, "fairway_vrrp_errors_total{kind=\"" + kind + "\"}");
  }

  @Test
  void fairwayDropsAdvertsFromSourcesNoRouterHasAndStaysMaster() throws Exception {
    master(Kind.FAIRWAY);
    // The admin listener may open after the address is held: refused connects are retried.
    await()
        .atMost(VrrpInteropTest.START)
        .ignoreExceptionsInstanceOf(java.io.IOException.class)
        .until(() -> errors(metrics(), "auth") == 0);
    long before = value(metrics(), "fairway_vrrp_packets_received_total");
    for (String source : SOURCES.keySet()) {
      send(source, 51, "right", 1);
    }
    // A last advert from the peer's real address with the wrong password: once it is counted,
    // everything sent before it on the same socket has been through the checks.
    send("10.99.0.2", 51, "wrong", 1);
    await().atMost(Duration.ofSeconds(10)).until(() -> errors(metrics(), "auth") == 1);
    String m = metrics();
    assertThat(m).contains("fairway_vrrp_state{instance=\"VI_1\",state=\"master\"} 1");
    assertThat(Netns.holds(net.a, VIP)).isTrue();
    long delivered = value(m, "fairway_vrrp_packets_received_total") - before - 1;
    long counted = 0;
    for (String kind : List.copyOf(new java.util.LinkedHashSet<>(SOURCES.values()))) {
      counted += errors(m, kind);
      System.out.println("fairway: " + kind + " " + errors(m, kind));
    }
    System.out.println("fairway: delivered by the kernel " + delivered + " of " + SOURCES.size());
    // The kernel itself drops some kinds before any socket sees them (which depends on its
    // martian checks); every one it delivered is counted, and 0.0.0.0 to 224.0.0.18 always is.
    assertThat(errors(m, "source_unspecified")).isEqualTo(1);
    assertThat(counted).isEqualTo(delivered);
    await()
        .during(Duration.ofSeconds(2))
        .atMost(Duration.ofSeconds(4))
        .pollInterval(Duration.ofMillis(50))
        .until(() -> Netns.holds(net.a, VIP));
  }

  @Test
  void packetsTheKernelDroppedFromAFullVrrpSocketAreCounted() throws Exception {
    VrrpRouterProcess r = master(Kind.FAIRWAY);
    await().atMost(VrrpInteropTest.START).until(() -> errors(metrics(), "socket_overflow") == 0);
    // Stopped, the router reads nothing: the socket's queue fills and the kernel drops the rest.
    List<String> pids = Netns.pids(r.ns);
    Netns.signal(pids, "STOP");
    try {
      send("10.99.0.2", 52, "right", 5000);
    } finally {
      Netns.signal(pids, "CONT");
    }
    // The count arrives with the next packet queued after the drops.
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(500))
        .until(
            () -> {
              send("10.99.0.2", 52, "right", 1);
              return errors(metrics(), "socket_overflow") > 0;
            });
    long dropped = errors(metrics(), "socket_overflow");
    System.out.println("fairway: socket_overflow " + dropped + " of 5000");
    assertThat(dropped).isLessThanOrEqualTo(5000);
  }

  @Test
  void keepalivedGetsTheSamePackets() throws Exception {
    master(Kind.KEEPALIVED);
    Map<String, Boolean> yielded = new LinkedHashMap<>();
    for (String source : SOURCES.keySet()) {
      send(source, 51, "right", 1);
      boolean released;
      try {
        await()
            .atMost(Duration.ofSeconds(2))
            .pollInterval(Duration.ofMillis(20))
            .until(() -> !Netns.holds(net.a, VIP));
        released = true;
      } catch (ConditionTimeoutException e) {
        released = false;
      }
      yielded.put(source, released);
      if (released) {
        // The "master" never speaks again: keepalived takes the address back after its master
        // down interval.
        awaitHolds(net.a, VIP, Duration.ofSeconds(10));
      }
    }
    System.out.println("keepalived 2.2.7 yielded mastership to: " + yielded);
    // What docs/vrrp.md records: the kernel drops the multicast, limited broadcast and own-address
    // sources before any socket (as the Fairway test's packet count shows); of the two it
    // delivers, keepalived takes both as a master of priority 255 and gives up the address.
    assertThat(yielded)
        .containsEntry("0.0.0.0", true)
        .containsEntry("10.99.0.255", true)
        .containsEntry("224.0.0.5", false)
        .containsEntry("255.255.255.255", false)
        .containsEntry("10.99.0.1", false);
  }
}
