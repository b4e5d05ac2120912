package io.fairway.cli;

import static io.fairway.cli.LoopbackHttp.get;
import static io.fairway.cli.LoopbackHttp.value;
import static io.fairway.cli.LoopbackHttp.virtualServer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fairway.daemon.Promtool;
import io.fairway.testkit.FairwayProcess;
import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code access_log} in a running {@code fairway run --userspace}, through real sockets on
 * loopback: requests become lines in the combined file, the JSON file and syslog (UDP here); after
 * logrotate's move and SIGUSR1 the lines go to a new file; a reload that changes the logs closes
 * and opens them, an invalid one keeps the running logs; {@code /metrics} counts what was written.
 */
class AccessLogRunTest {
  @TempDir Path dir;
  final LoopbackHttp net = new LoopbackHttp();

  // Started by each test that needs it, before any use; closed after each when started.
  @SuppressWarnings("NullAway.Init")
  FairwayProcess fairway;

  @SuppressWarnings("NullAway.Init")
  DatagramSocket syslog;

  final List<String> syslogLines = new CopyOnWriteArrayList<>();
  int admin;

  @AfterEach
  void cleanUp() throws Exception {
    if (fairway != null) {
      fairway.close();
    }
    net.close();
    if (syslog != null) {
      syslog.close();
    }
  }

  /** A syslog server on loopback that keeps every datagram. */
  int syslogServer() throws IOException {
    syslog = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    Thread t =
        new Thread(
            () -> {
              byte[] buf = new byte[65536];
              while (!syslog.isClosed()) {
                DatagramPacket p = new DatagramPacket(buf, buf.length);
                try {
                  syslog.receive(p);
                  syslogLines.add(
                      new String(p.getData(), 0, p.getLength(), StandardCharsets.UTF_8));
                } catch (IOException e) {
                  return;
                }
              }
            },
            "syslog");
    t.setDaemon(true);
    t.start();
    return syslog.getLocalPort();
  }

  String scrape() throws Exception {
    return net.admin(admin, "/metrics").body();
  }

  static List<String> lines(Path p) throws IOException {
    return Files.exists(p) ? Files.readAllLines(p) : List.of();
  }

  void reload(Path conf, String text, String expect) throws Exception {
    long before = fairway.log().lines().filter(l -> l.contains(expect)).count();
    Files.writeString(conf, text);
    fairway.signal("HUP");
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> fairway.log().lines().filter(l -> l.contains(expect)).count() > before);
  }

  @Test
  void requestsAreLoggedReopenedOnUsr1AndFollowReloads() throws Exception {
    int rs = net.answering(LoopbackHttp.OK);
    int vip = UserspaceRunTest.freePort();
    admin = UserspaceRunTest.freePort();
    int syslogPort = syslogServer();
    Path combined = dir.resolve("access.log");
    Path json = dir.resolve("access.json");
    Path conf = dir.resolve("keepalived.conf");
    Files.writeString(
        conf,
        virtualServer(
            vip,
            rs,
            "    access_log "
                + combined
                + " combined\n    access_log "
                + json
                + " json\n    access_log syslog json\n"));
    fairway =
        FairwayProcess.fromTestClasspath("-Dfairway.accesslog.syslog=udp:127.0.0.1:" + syslogPort)
            .env("FAIRWAY_RUNTIME_DIR", dir.resolve("run").toString())
            .log(dir.resolve("fairway.log"))
            .start("run", "--userspace", "-f", conf.toString(), "--admin", "127.0.0.1:" + admin);
    await().atMost(Duration.ofSeconds(60)).until(() -> fairway.log().contains("listening on"));

    assertThat(get(vip, "/first?x=1")).isEqualTo(200);
    assertThat(get(vip, "/second")).isEqualTo(200);

    await().atMost(Duration.ofSeconds(10)).until(() -> lines(combined).size() == 2);
    assertThat(lines(combined).get(0))
        .matches(
            "127\\.0\\.0\\.1 - \\S+ \\[\\d\\d/\\w{3}/\\d{4}:\\d\\d:\\d\\d:\\d\\d \\+0000\\]"
                + " \"GET /first\\?x=1 HTTP/1\\.1\" 200 \\d+ \"-\" \"-\"");
    await().atMost(Duration.ofSeconds(10)).until(() -> lines(json).size() == 2);
    JsonNode j = new ObjectMapper().readTree(lines(json).get(1));
    assertThat(j.get("client").asText()).isEqualTo("127.0.0.1");
    assertThat(j.get("target").asText()).isEqualTo("/second");
    assertThat(j.get("status").asInt()).isEqualTo(200);
    assertThat(j.get("real_server").asText()).contains(Integer.toString(rs));
    assertThat(j.get("termination").asText()).isEqualTo("ok");
    await().atMost(Duration.ofSeconds(10)).until(() -> syslogLines.size() == 2);
    assertThat(syslogLines.get(0))
        .matches("<190>\\w{3} [ \\d]\\d \\d\\d:\\d\\d:\\d\\d fairway\\[\\d+\\]: \\{.*\\}")
        .contains("\"target\":\"/first?x=1\"");

    // logrotate: move, then SIGUSR1 (its postrotate); the next request goes to a new file.
    Path rotated = dir.resolve("access.log.1");
    Files.move(combined, rotated);
    fairway.signal("USR1");
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> fairway.log().contains("SIGUSR1: access logs reopened"));
    assertThat(get(vip, "/third")).isEqualTo(200);
    await().atMost(Duration.ofSeconds(10)).until(() -> lines(combined).size() == 1);
    assertThat(lines(combined).get(0)).contains("\"GET /third HTTP/1.1\" 200");
    assertThat(lines(rotated)).hasSize(2);

    String scrape = scrape();
    Promtool.assertClean(scrape, dir);
    String label = "log=\"" + combined + "\"";
    assertThat(value(scrape, "fairway_access_log_records_total", label, "result=\"written\""))
        .isEqualTo(3);
    assertThat(value(scrape, "fairway_access_log_records_total", label, "result=\"dropped\""))
        .isZero();

    // A reload that drops the JSON log and moves the combined one: closed, and opened.
    Path moved = dir.resolve("other.log");
    reload(conf, virtualServer(vip, rs, "    access_log " + moved + " combined\n"), "reloaded ");
    assertThat(fairway.log()).contains("access_log changed");
    assertThat(get(vip, "/fourth")).isEqualTo(200);
    await().atMost(Duration.ofSeconds(10)).until(() -> lines(moved).size() == 1);
    assertThat(lines(json)).hasSize(3); // /third was its last
    assertThat(lines(combined)).hasSize(1);

    // An invalid reload (a log in a directory that does not exist): the running log stays.
    Path nowhere = dir.resolve("no-such-dir").resolve("a.log");
    reload(
        conf,
        virtualServer(vip, rs, "    access_log " + nowhere + " combined\n"),
        "reload refused");
    assertThat(fairway.log()).contains("access_log " + nowhere + ": cannot open it for writing");
    assertThat(get(vip, "/fifth")).isEqualTo(200);
    await().atMost(Duration.ofSeconds(10)).until(() -> lines(moved).size() == 2);
    assertThat(lines(moved).get(1)).contains("/fifth");
    assertThat(syslogLines).hasSize(3);
  }
}
