package io.fairway.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fairway.testkit.ExternalPrograms;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A DNS virtual server ({@code protocol UDP}, {@code DNS_CHECK}) run by {@code fairway run
 * --userspace} in front of two real dnsmasq servers: queries are answered by both, and when one
 * dnsmasq dies the check takes it out and every answer comes from the other.
 */
class UserspaceUdpRunTest {
  private static final InetAddress LO = InetAddress.getLoopbackAddress();
  @TempDir Path dir;
  private final List<Process> processes = new ArrayList<>();

  @AfterEach
  void cleanUp() throws Exception {
    for (Process p : processes) {
      if (p.isAlive()) {
        p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    }
  }

  static int freeUdpPort() throws IOException {
    // dnsmasq binds TCP too on its port, and exits when either is taken.
    return io.fairway.testkit.FreePorts.loopback();
  }

  private Process dnsmasq(int port, String answer) throws IOException {
    Process p =
        new ProcessBuilder(
                "/usr/sbin/dnsmasq",
                "--no-daemon",
                "--port=" + port,
                "--listen-address=127.0.0.1",
                "--bind-interfaces",
                "--no-resolv",
                "--no-hosts",
                "--conf-file=/dev/null",
                "--user=" + System.getProperty("user.name"),
                "--address=/example.test/" + answer)
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("dnsmasq-" + port + ".log").toFile())
            .start();
    processes.add(p);
    return p;
  }

  static String conf(int vip, int... servers) {
    StringBuilder sb =
        new StringBuilder(
            "virtual_server 127.0.0.1 "
                + vip
                + " {\n"
                + "    delay_loop 1\n    lb_algo rr\n    lb_kind NAT\n    protocol UDP\n");
    for (int p : servers) {
      sb.append("    real_server 127.0.0.1 ")
          .append(p)
          .append(
              " {\n"
                  + "        DNS_CHECK {\n            type A\n            name www.example.test\n"
                  + "            connect_timeout 1\n            retry 1\n            delay_before_retry 1\n"
                  + "        }\n    }\n");
    }
    return sb.append("}\n").toString();
  }

  /** The A record the virtual server answers for www.example.test, or "" on no answer. */
  static String resolve(int vip) {
    try (DatagramSocket s = new DatagramSocket(0, LO)) {
      s.setSoTimeout(1000);
      byte[] q = query(0x4242, "www.example.test");
      s.send(new DatagramPacket(q, q.length, new InetSocketAddress(LO, vip)));
      DatagramPacket p = new DatagramPacket(new byte[512], 512);
      s.receive(p);
      byte[] r = Arrays.copyOf(p.getData(), p.getLength());
      if ((ByteBuffer.wrap(r).getShort(0) & 0xffff) != 0x4242 || (r[3] & 0x0f) != 0) {
        return "";
      }
      return InetAddress.getByAddress(Arrays.copyOfRange(r, r.length - 4, r.length))
          .getHostAddress();
    } catch (IOException e) {
      return "";
    }
  }

  static byte[] query(int id, String name) {
    ByteBuffer b = ByteBuffer.allocate(512);
    // id, flags (RD), one question, no answer/authority/additional records
    b.putShort((short) id)
        .putShort((short) 0x0100)
        .putShort((short) 1)
        .putShort((short) 0)
        .putShort((short) 0)
        .putShort((short) 0);
    for (String label : name.split("\\.")) {
      b.put((byte) label.length()).put(label.getBytes(StandardCharsets.US_ASCII));
    }
    b.put((byte) 0).putShort((short) 1).putShort((short) 1);
    return Arrays.copyOf(b.array(), b.position());
  }

  @Test
  void dnsVirtualServerFailsOverWhenADnsServerDies() throws Exception {
    ExternalPrograms.require("dnsmasq", "/usr/sbin/dnsmasq");
    int d1 = freeUdpPort();
    int d2 = freeUdpPort();
    Process first = dnsmasq(d1, "10.1.0.1");
    dnsmasq(d2, "10.1.0.2");
    int vip = freeUdpPort();
    int admin = UserspaceRunTest.freePort();
    Path conf = dir.resolve("keepalived.conf");
    Files.writeString(conf, conf(vip, d1, d2));
    String cp =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    Path log = dir.resolve("fairway.log");
    processes.add(
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                cp,
                "io.fairway.cli.Main",
                "run",
                "--userspace",
                "-f",
                conf.toString(),
                "--admin",
                "127.0.0.1:" + admin)
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start());

    Set<String> seen = new HashSet<>();
    await()
        .atMost(Duration.ofSeconds(60))
        .failFast(
            () -> {
              if (!processes.get(processes.size() - 1).isAlive()) {
                throw new AssertionError("fairway run exited: " + Files.readString(log));
              }
            })
        .until(
            () -> {
              seen.add(resolve(vip)); // each query is a new client port: a new flow, rr moves on
              return seen.containsAll(Set.of("10.1.0.1", "10.1.0.2"));
            });

    // The data plane may answer before the admin endpoint listens (a loaded machine widens the
    // gap): wait for status to answer, keeping what it said last.
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              out.getBuffer().setLength(0);
              err.getBuffer().setLength(0);
              int code =
                  Main.execute(
                      new String[] {"status", "--admin", "127.0.0.1:" + admin},
                      new PrintWriter(out, true),
                      new PrintWriter(err, true));
              assertThat(code).as("fairway status: %s", err).isZero();
            });
    assertThat(out.toString()).contains("UDP  127.0.0.1:" + vip + " rr");

    first.destroy();
    first.waitFor(5, TimeUnit.SECONDS);
    // DNS_CHECK fails, the server leaves the table, and every query is answered by the other.
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> {
              for (int i = 0; i < 6; i++) {
                if (!resolve(vip).equals("10.1.0.2")) {
                  return false;
                }
              }
              return true;
            });
    assertThat(Files.readString(log)).doesNotContain("\tat ");
  }
}
