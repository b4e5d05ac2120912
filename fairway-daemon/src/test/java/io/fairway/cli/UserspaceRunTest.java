package io.fairway.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fairway.testkit.FairwayProcess;
import io.fairway.testkit.HttpBackend;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code fairway run --userspace} as a process on loopback, no root: traffic flows through the
 * proxy to health-checked backends, {@code fairway status} shows them, SIGHUP adds a backend, an
 * invalid SIGHUP is refused while traffic keeps flowing, SIGTERM exits 0 and closes the listener.
 */
class UserspaceRunTest {
  @TempDir Path dir;
  final List<HttpBackend> backends = new ArrayList<>();

  // Started by each test that needs it, before any use; closed after each when started.
  @SuppressWarnings("NullAway.Init")
  FairwayProcess fairway;

  @AfterEach
  void cleanUp() throws Exception {
    if (fairway != null) {
      fairway.close();
    }
    backends.forEach(HttpBackend::close);
  }

  int backend(String name) throws IOException {
    HttpBackend b = new HttpBackend(name);
    backends.add(b);
    return b.port();
  }

  static int freePort() throws IOException {
    return io.fairway.testkit.FreePorts.loopback();
  }

  static String conf(int vip, int... ports) {
    StringBuilder sb =
        new StringBuilder(
            "virtual_server 127.0.0.1 "
                + vip
                + " {\n"
                + "    delay_loop 1\n    lb_algo rr\n    lb_kind PROXY\n    protocol TCP\n");
    for (int p : ports) {
      sb.append("    real_server 127.0.0.1 ")
          .append(p)
          .append(
              " {\n        weight 1\n"
                  + "        TCP_CHECK {\n            connect_timeout 1\n        }\n    }\n");
    }
    return sb.append("}\n").toString();
  }

  /** One request on a fresh connection (an L4 proxy balances connections, not requests). */
  static String get(int port) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 3000);
      s.setSoTimeout(3000);
      s.getOutputStream()
          .write("GET / HTTP/1.0\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      String response = new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      int body = response.indexOf("\r\n\r\n");
      return body < 0 ? "" : response.substring(body + 4);
    } catch (IOException e) {
      return "";
    }
  }

  @Test
  void runsReloadsAndStopsOnTheUserspaceProxy() throws Exception {
    int b1 = backend("b1");
    int b2 = backend("b2");
    int vip = freePort();
    int admin = freePort();
    Path conf = dir.resolve("keepalived.conf");
    Files.writeString(conf, conf(vip, b1));
    fairway =
        FairwayProcess.fromTestClasspath()
            .log(dir.resolve("fairway.log"))
            .start("run", "--userspace", "-f", conf.toString(), "--admin", "127.0.0.1:" + admin);

    await().atMost(Duration.ofSeconds(60)).until(() -> get(vip).equals("b1"));

    // The admin listener starts once the table is installed, so it may answer a moment after
    // traffic.
    StringWriter out = new StringWriter();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> {
              out.getBuffer().setLength(0);
              return Main.execute(
                      new String[] {"status", "--admin", "127.0.0.1:" + admin},
                      new PrintWriter(out, true),
                      new PrintWriter(new StringWriter(), true))
                  == 0;
            });
    assertThat(out.toString())
        .contains("TCP  127.0.0.1:" + vip + " rr")
        .contains("127.0.0.1:" + b1);

    Files.writeString(conf, conf(vip, b1, b2));
    fairway.signal("HUP");
    awaitBoth(vip);

    Files.writeString(conf, "virtual_server 127.0.0.1 " + vip + " {\n    lb_algo nosuch\n");
    fairway.signal("HUP");
    await().atMost(Duration.ofSeconds(30)).until(() -> fairway.log().contains("reload refused"));
    assertThat(get(vip)).isIn("b1", "b2");

    // Which transport carried the traffic: io_uring wherever the kernel allows it (auto).
    String transport =
        io.netty.channel.uring.IoUring.isAvailable()
            ? "io_uring"
            : io.netty.channel.epoll.Epoll.isAvailable() ? "epoll" : "nio";
    assertThat(fairway.log())
        .contains("userspace data plane started (" + transport + " transport)");

    assertThat(fairway.stop(Duration.ofSeconds(30))).as(fairway.log()).isZero();
    assertThat(fairway.log()).doesNotContain("\tat ");
    try (Socket s = new Socket()) {
      org.assertj.core.api.Assertions.assertThatThrownBy(
              () -> s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), vip), 1000))
          .isInstanceOf(IOException.class);
    }
  }

  /** After a SIGHUP that added b2: both backends answer (rr over fresh connections). */
  void awaitBoth(int vip) {
    Set<String> seen = new HashSet<>();
    try {
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () -> {
                seen.add(get(vip));
                return seen.containsAll(Set.of("b1", "b2"));
              });
    } catch (org.awaitility.core.ConditionTimeoutException e) {
      throw new AssertionError(
          "after SIGHUP saw only "
              + seen
              + "; fairway "
              + (fairway.alive() ? "still running" : "exited " + fairway.process().exitValue())
              + ", its log:\n"
              + fairway.log(),
          e);
    }
  }

  /**
   * Under {@code nohup} (SIGHUP inherited as ignored, which the JVM then refuses to handle), a
   * SIGHUP still reloads. Before Signals took the signal back, it was silently dropped: the reload
   * was never seen, as in this test's three failures in the repeated daemon suites.
   */
  @Test
  void aSighupReloadsAlsoUnderNohup() throws Exception {
    int b1 = backend("b1");
    int b2 = backend("b2");
    int vip = freePort();
    Path conf = dir.resolve("keepalived.conf");
    Files.writeString(conf, conf(vip, b1));
    int admin = freePort();
    fairway =
        FairwayProcess.fromTestClasspath()
            .prefix("nohup")
            .log(dir.resolve("fairway.log"))
            .start("run", "--userspace", "-f", conf.toString(), "--admin", "127.0.0.1:" + admin);
    await().atMost(Duration.ofSeconds(60)).until(() -> get(vip).equals("b1"));
    // The admin endpoint answers once the SIGHUP handler is in place.
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                Main.execute(
                        new String[] {"status", "--admin", "127.0.0.1:" + admin},
                        new PrintWriter(new StringWriter(), true),
                        new PrintWriter(new StringWriter(), true))
                    == 0);

    Files.writeString(conf, conf(vip, b1, b2));
    fairway.signal("HUP");
    awaitBoth(vip);
    assertThat(fairway.log()).contains("SIGHUP was ignored by whoever started fairway");
    assertThat(fairway.stop(Duration.ofSeconds(30))).as(fairway.log()).isZero();
  }

  @Test
  void aTransportThatCannotBeHadIsAOneLineErrorAtStart() throws Exception {
    int vip = freePort();
    Path conf = dir.resolve("keepalived.conf");
    Files.writeString(conf, conf(vip, freePort()));
    fairway =
        FairwayProcess.fromTestClasspath("-Dfairway.proxy.transport=kqueue")
            .log(dir.resolve("fairway.log"))
            .start("run", "--userspace", "-f", conf.toString(), "--admin", "off");
    assertThat(fairway.awaitExit(Duration.ofSeconds(30))).as(fairway.log()).isEqualTo(1);
    assertThat(fairway.log())
        .contains("fairway: fairway.proxy.transport=kqueue: expected auto, io_uring, epoll or nio")
        .doesNotContain("\tat ");
  }
}
