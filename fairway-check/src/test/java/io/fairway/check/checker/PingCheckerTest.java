package io.fairway.check.checker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fairway.check.CheckConfigException;
import io.fairway.check.spec.CheckSource;
import io.fairway.check.spec.CheckTiming;
import io.fairway.check.spec.PingCheckSpec;
import io.fairway.testkit.ThreadNetns;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/** PING_CHECK over ICMPv6 and from a source, on loopback and in a network namespace of our own. */
class PingCheckerTest {
  static final CheckerHarness harness = new CheckerHarness();
  static final CheckTiming T = CheckTiming.of(Duration.ofSeconds(1), Duration.ofMillis(1500));
  static final CheckTiming FAST = CheckTiming.of(Duration.ofSeconds(1), Duration.ofMillis(300));

  @AfterAll
  static void close() {
    harness.close();
  }

  static CheckResult ping(CheckerHarness h, PingCheckSpec spec) throws Exception {
    try {
      return h.once(spec);
    } catch (CheckConfigException e) {
      assumeTrue(
          !Objects.requireNonNull(e.getMessage(), "a config error says why")
              .contains("ping_group_range"),
          "ICMP ping sockets not allowed here: " + e.getMessage());
      throw e;
    }
  }

  @Test
  void pingIpv6Loopback() throws Exception {
    var spec = new PingCheckSpec(InetAddress.getByName("::1"), T);
    assertThat(spec.describe()).isEqualTo("PING_CHECK ::1");
    CheckResult r = ping(harness, spec);
    assertThat(r.success()).as(r.observation()).isTrue();
    assertThat(r.observation()).startsWith("echo reply in");
  }

  @Test
  void pingFromABoundSourceAndFromAnAddressWeDoNotHave() throws Exception {
    var fromLo2 =
        new PingCheckSpec(
            InetAddress.getByName("127.0.0.1"),
            new CheckSource(InetAddress.getByName("127.0.0.2"), 0, "lo", 0),
            T);
    CheckResult ok = ping(harness, fromLo2);
    assertThat(ok.success()).as(ok.observation()).isTrue();
    // 192.0.2.1 (TEST-NET-1) is not ours: the bind fails, and every attempt says so; nothing is
    // sent.
    var foreign =
        new PingCheckSpec(
            InetAddress.getByName("127.0.0.1"),
            new CheckSource(InetAddress.getByName("192.0.2.1"), 0, null, 0),
            T);
    Checker c = harness.create(foreign, 1);
    for (int i = 0; i < 2; i++) {
      CheckResult r = CheckerHarness.once(c);
      assertThat(r.success()).isFalse();
      assertThat(r.observation())
          .isEqualTo("cannot bind to 192.0.2.1:0: Cannot assign requested address");
    }
  }

  @Test
  void bindtoOfTheOtherFamilyIsALoadError() throws Exception {
    var spec =
        new PingCheckSpec(
            InetAddress.getByName("::1"),
            new CheckSource(InetAddress.getByName("127.0.0.2"), 0, null, 0),
            T);
    assertThatThrownBy(() -> harness.create(spec, 1))
        .isInstanceOf(CheckConfigException.class)
        .hasMessage(
            "vs rs PING_CHECK ::1 from 127.0.0.2: bindto 127.0.0.2 is not of the target's"
                + " address family");
  }

  /**
   * An IPv6 address that does not answer, without sending anything off this host: in a namespace of
   * our own whose loopback holds fd00:fa1::1/64, fd00:fa1::2 routes to lo and nobody has it.
   */
  @Test
  void pingIpv6AddressThatDoesNotAnswerIsDown() throws Exception {
    Programs.requireRoot("a network namespace");
    Path ip = Programs.require("ip");
    String ns = "fwchk-" + ProcessHandle.current().pid();
    run(ip.toString(), "netns", "add", ns);
    try {
      run(ip.toString(), "netns", "exec", ns, ip.toString(), "link", "set", "lo", "up");
      run(
          ip.toString(),
          "netns",
          "exec",
          ns,
          ip.toString(),
          "-6",
          "addr",
          "add",
          "fd00:fa1::1/64",
          "dev",
          "lo",
          "nodad");
      CheckResult[] r =
          inNetns(
              ns,
              inside ->
                  new CheckResult[] {
                    inside.once(new PingCheckSpec(InetAddress.getByName("fd00:fa1::1"), FAST)),
                    inside.once(new PingCheckSpec(InetAddress.getByName("fd00:fa1::2"), FAST))
                  });
      assertThat(r[0].success()).as(r[0].observation()).isTrue();
      assertThat(r[1].success()).isFalse();
      assertThat(r[1].observation()).isEqualTo("no echo reply within 300 ms");
    } finally {
      run(ip.toString(), "netns", "del", ns);
    }
  }

  /**
   * bind_if's reason to exist: a link-local IPv6 target, reachable only through one interface. Two
   * namespaces of our own joined by a veth pair (fe80::a on one end, fe80::b on the other); nothing
   * leaves this host.
   */
  @Test
  void linkLocalTargetThroughBindIf() throws Exception {
    Programs.requireRoot("network namespaces");
    String ip = Programs.require("ip").toString();
    String tag = Long.toString(ProcessHandle.current().pid() % 100000);
    String a = "fwcka-" + tag;
    String b = "fwckb-" + tag;
    String va = "fwva" + tag;
    String vb = "fwvb" + tag;
    run(ip, "netns", "add", a);
    try {
      run(ip, "netns", "add", b);
      try {
        run(ip, "-n", a, "link", "add", va, "type", "veth", "peer", "name", vb, "netns", b);
        run(ip, "-n", a, "link", "set", "lo", "up");
        run(ip, "-n", a, "link", "set", va, "up");
        run(ip, "-n", a, "-6", "addr", "add", "fe80::a/64", "dev", va, "nodad");
        run(ip, "-n", b, "link", "set", vb, "up");
        run(ip, "-n", b, "-6", "addr", "add", "fe80::b/64", "dev", vb, "nodad");
        CheckSource via = new CheckSource(null, 0, va, 0);
        InetAddress target = InetAddress.getByName("fe80::b");
        CheckResult[] r =
            inNetns(
                a,
                inside -> {
                  CheckResult ping = null;
                  for (int i = 0; i < 20 && (ping == null || !ping.success()); i++) {
                    ping =
                        inside.once(
                            new PingCheckSpec(target, via, FAST)); // the link may take a moment
                  }
                  // Nothing listens on port 9 over there: the port unreachable proves the datagram
                  // got there.
                  CheckResult udp =
                      inside.once(
                          new io.fairway.check.spec.UdpCheckSpec(
                              new java.net.InetSocketAddress(target, 9),
                              via,
                              "00",
                              null,
                              0,
                              255,
                              T));
                  return new CheckResult[] {ping, udp};
                });
        assertThat(r[0].success()).as(r[0].observation()).isTrue();
        assertThat(r[1].observation()).isEqualTo("port unreachable (ICMP)");
      } finally {
        run(ip, "netns", "del", b);
      }
    } finally {
      run(ip, "netns", "del", a);
    }
  }

  interface InNs<T> {
    T run(CheckerHarness inside) throws Exception;
  }

  /**
   * Runs {@code body} on a thread that has entered network namespace {@code ns}, with a harness of
   * its own: sockets belong to the namespace of the thread that creates them, and checkers create
   * theirs on the thread that calls them.
   */
  static <T> T inNetns(String ns, InNs<T> body) throws Exception {
    CompletableFuture<T> result = new CompletableFuture<>();
    Thread t =
        new Thread(
            () -> {
              try {
                ThreadNetns.enter(ns);
              } catch (IllegalStateException e) {
                result.completeExceptionally(e);
                return;
              }
              try (CheckerHarness inside = new CheckerHarness()) {
                result.complete(body.run(inside));
              } catch (Exception e) {
                result.completeExceptionally(e);
              }
            });
    t.start();
    return result.get(60, TimeUnit.SECONDS);
  }

  static void run(String... cmd) throws Exception {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(String.join(" ", cmd) + ": " + out).isZero();
  }
}
