package io.fairway.check.checker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fairway.check.CheckConfigException;
import io.fairway.check.spec.CheckTiming;
import io.fairway.check.spec.DnsCheckSpec;
import io.fairway.check.spec.PingCheckSpec;
import io.fairway.check.spec.SmtpCheckSpec;
import io.fairway.check.spec.TcpCheckSpec;
import io.fairway.check.spec.UdpCheckSpec;
import io.netty.buffer.Unpooled;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** TCP, SMTP, DNS, UDP and ICMP checkers against real servers on loopback. */
class ProtocolCheckersTest {
  static final CheckerHarness harness = new CheckerHarness();
  static final CheckTiming T = CheckTiming.of(Duration.ofSeconds(1), Duration.ofMillis(1500));
  @TempDir Path dir;

  @AfterAll
  static void close() {
    harness.close();
  }

  static InetSocketAddress local(int port) {
    return new InetSocketAddress("127.0.0.1", port);
  }

  @Test
  void tcpConnectsToAListenerAndIsRefusedByAClosedPort() throws Exception {
    try (ServerSocket s = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      CheckResult ok = harness.once(new TcpCheckSpec(local(s.getLocalPort()), T));
      assertThat(ok.success()).as(ok.observation()).isTrue();
      assertThat(ok.observation()).startsWith("connected in");
    }
    try (Socket closed = Programs.refusingPort()) {
      CheckResult refused = harness.once(new TcpCheckSpec(local(closed.getLocalPort()), T));
      assertThat(refused.success()).isFalse();
      assertThat(refused.observation()).isEqualTo("connection refused");
    }
  }

  @Test
  void tcpOverIpv6Loopback() throws Exception {
    InetAddress v6 = InetAddress.getByName("::1");
    ServerSocket s;
    try {
      s = new ServerSocket(0, 50, v6);
    } catch (java.io.IOException e) {
      org.junit.jupiter.api.Assumptions.assumeTrue(
          false, "no IPv6 loopback here: " + e.getMessage());
      return;
    }
    try (s) {
      var spec = new TcpCheckSpec(new InetSocketAddress(v6, s.getLocalPort()), T);
      assertThat(spec.describe()).isEqualTo("TCP_CHECK [::1]:" + s.getLocalPort());
      assertThat(harness.once(spec).success()).isTrue();
    }
  }

  @Test
  void unresolvableHostIsALoadError() {
    var spec = new TcpCheckSpec(InetSocketAddress.createUnresolved("no-such-host.invalid", 80), T);
    assertThatThrownBy(() -> harness.create(spec, 1))
        .isInstanceOf(CheckConfigException.class)
        .hasMessage(
            "vs rs TCP_CHECK no-such-host.invalid:80: cannot resolve host name no-such-host.invalid");
  }

  @Test
  void smtpAgainstOpenSmtpd() throws Exception {
    Path smtpd = Programs.require("smtpd");
    Programs.requireRoot("OpenSMTPD");
    int port = Programs.freePort();
    Path conf = dir.resolve("smtpd.conf");
    Files.writeString(
        conf,
        """
                listen on 127.0.0.1 port %d
                action "local" mbox
                match from any for any reject
                """
            .formatted(port));
    Files.setPosixFilePermissions(
        conf, java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--"));
    Path log = dir.resolve("smtpd.log");
    Process p = Programs.start(log, smtpd.toString(), "-d", "-f", conf.toString());
    try {
      Programs.awaitTcp(port, p, log);
      CheckResult r = harness.once(new SmtpCheckSpec(local(port), SmtpCheckSpec.DEFAULT_HELO, T));
      assertThat(r.success()).as(r.observation()).isTrue();
      assertThat(Programs.tail(log)).contains("smtp connected");
    } finally {
      Programs.stop(p);
    }
  }

  @Test
  void smtpFailsOnAServerThatIsNotSmtp() throws Exception {
    // nginx-like: a TCP server that greets with something else.
    try (ServerSocket s = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      Thread t =
          new Thread(
              () -> {
                try (var c = s.accept()) {
                  c.getOutputStream().write("554 go away\r\n".getBytes(StandardCharsets.US_ASCII));
                  c.getOutputStream().flush();
                  c.getInputStream().read();
                } catch (Exception ignored) {
                  // test server
                }
              });
      t.start();
      CheckResult r =
          harness.once(new SmtpCheckSpec(local(s.getLocalPort()), SmtpCheckSpec.DEFAULT_HELO, T));
      assertThat(r.success()).isFalse();
      assertThat(r.observation()).isEqualTo("greeting \"554 go away\", expected 220");
      t.join(2000);
    }
  }

  @Test
  void dnsAgainstDnsmasq() throws Exception {
    Path dnsmasq = Programs.require("dnsmasq");
    int port = Programs.freeUdpAndTcpPort();
    Path log = dir.resolve("dnsmasq.log");
    Process p =
        Programs.start(
            log,
            dnsmasq.toString(),
            "--no-daemon",
            "--port=" + port,
            "--listen-address=127.0.0.1",
            "--bind-interfaces",
            "--no-resolv",
            "--no-hosts",
            "--conf-file=/dev/null",
            "--user=root",
            "--address=/check.test/127.0.0.9",
            "--log-queries");
    try {
      // dnsmasq answers once it has bound its port: until then the check fails.
      CheckResult[] last = new CheckResult[1];
      await()
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(100))
          .failFast(
              () -> {
                // The log is read when dnsmasq has exited, not when the wait starts.
                if (!p.isAlive()) {
                  throw new AssertionError(
                      "dnsmasq exited " + p.exitValue() + ": " + Programs.tail(log));
                }
              })
          .until(
              () -> {
                last[0] = harness.once(new DnsCheckSpec(local(port), "A", "www.check.test", T));
                return last[0].success();
              });
      CheckResult ok = last[0];
      assertThat(ok.observation()).isEqualTo("A www.check.test.: NOERROR, 1 answer(s)");
      CheckResult refused = harness.once(new DnsCheckSpec(local(port), "SOA", ".", T));
      assertThat(refused.success()).isFalse();
      assertThat(refused.observation()).startsWith("SOA .: ").contains("Refused(5)");
    } finally {
      Programs.stop(p);
    }
    CheckResult gone = harness.once(new DnsCheckSpec(local(port), "A", "www.check.test", T));
    assertThat(gone.success()).isFalse();
  }

  @Test
  void unknownDnsTypeIsALoadError() {
    assertThatThrownBy(() -> harness.create(new DnsCheckSpec(local(53), "BOGUS", ".", T), 1))
        .isInstanceOf(CheckConfigException.class)
        .hasMessageContaining("unknown DNS record type BOGUS");
  }

  @Test
  void udpWithoutRequireReplyFailsOnlyOnIcmpPortUnreachable() throws Exception {
    var fast = CheckTiming.of(Duration.ofSeconds(1), Duration.ofMillis(300));
    CheckResult closed =
        harness.once(new UdpCheckSpec(local(Programs.freeUdpPort()), "00", null, 0, 255, fast));
    assertThat(closed.success()).isFalse();
    assertThat(closed.observation()).isEqualTo("port unreachable (ICMP)");
    try (DatagramSocket silent = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
      CheckResult r =
          harness.once(new UdpCheckSpec(local(silent.getLocalPort()), "00", null, 0, 255, fast));
      assertThat(r.success()).as(r.observation()).isTrue();
      assertThat(r.observation()).isEqualTo("no ICMP error within 300 ms");
    }
  }

  @Test
  void udpRequireReplyMatchesAgainstARealEchoServer() throws Exception {
    try (DatagramSocket echo = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
      Thread t =
          new Thread(
              () -> {
                byte[] buf = new byte[512];
                try {
                  while (true) {
                    DatagramPacket p = new DatagramPacket(buf, buf.length);
                    echo.receive(p);
                    echo.send(new DatagramPacket(p.getData(), p.getLength(), p.getSocketAddress()));
                  }
                } catch (Exception ignored) {
                  // closed
                }
              });
      t.setDaemon(true);
      t.start();
      int port = echo.getLocalPort();
      assertThat(
              harness.once(new UdpCheckSpec(local(port), "cafe01", "cafe01", 0, 255, T)).success())
          .isTrue();
      assertThat(harness.once(new UdpCheckSpec(local(port), "cafe01", "caXe", 0, 255, T)).success())
          .isTrue();
      CheckResult mismatch =
          harness.once(new UdpCheckSpec(local(port), "cafe01", "beef", 0, 255, T));
      assertThat(mismatch.success()).isFalse();
      assertThat(mismatch.observation()).isEqualTo("reply cafe01 does not match beef");
      CheckResult tooShort = harness.once(new UdpCheckSpec(local(port), "cafe01", "ca", 4, 255, T));
      assertThat(tooShort.observation()).isEqualTo("reply of 3 bytes, expected 4..255");
    }
  }

  @Test
  void udpPatternMatchingHonoursWildcardNibbles() {
    assertThat(UdpChecker.matches("xX0f", Unpooled.wrappedBuffer(new byte[] {(byte) 0xab, 0x0f})))
        .isTrue();
    assertThat(UdpChecker.matches("x10f", Unpooled.wrappedBuffer(new byte[] {(byte) 0xab, 0x0f})))
        .isFalse();
    // only min(pattern, reply) bytes are compared, as keepalived does
    assertThat(UdpChecker.matches("abcd", Unpooled.wrappedBuffer(new byte[] {(byte) 0xab})))
        .isTrue();
  }

  @Test
  void pingLoopback() throws Exception {
    CheckResult r;
    try {
      r = harness.once(new PingCheckSpec(InetAddress.getByName("127.0.0.1"), T));
    } catch (CheckConfigException e) {
      org.junit.jupiter.api.Assumptions.assumeTrue(
          false, "ICMP ping sockets not allowed here: " + e.getMessage());
      return;
    }
    assertThat(r.success()).as(r.observation()).isTrue();
    assertThat(r.observation()).startsWith("echo reply in");
    // many concurrent pings are matched to their own replies
    var futures = new java.util.ArrayList<java.util.concurrent.CompletableFuture<CheckResult>>();
    Checker c = harness.create(new PingCheckSpec(InetAddress.getByName("127.0.0.2"), T), 1);
    for (int i = 0; i < 50; i++) {
      var f = new java.util.concurrent.CompletableFuture<CheckResult>();
      c.check(f::complete);
      futures.add(f);
    }
    for (var f : futures) {
      assertThat(f.get(5, java.util.concurrent.TimeUnit.SECONDS).success()).isTrue();
    }
  }
}
