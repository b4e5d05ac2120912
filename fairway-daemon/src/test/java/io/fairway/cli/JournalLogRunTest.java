package io.fairway.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code fairway run}'s log lines as journald receives them: with JOURNAL_STREAM naming the very
 * file its stderr is (as systemd names the stream), each line starts with its syslog priority and
 * has no timestamp; with JOURNAL_STREAM naming something else (inherited, stderr redirected), the
 * lines are as on a terminal.
 */
class JournalLogRunTest {
  @TempDir Path dir;
  HttpServer backend;
  final List<Process> processes = new ArrayList<>();
  Path conf;
  int vip;

  @BeforeEach
  void backend() throws Exception {
    backend = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
    backend.createContext(
        "/",
        ex -> {
          ex.sendResponseHeaders(200, -1);
          ex.close();
        });
    backend.start();
    vip = UserspaceRunTest.freePort();
    conf = dir.resolve("keepalived.conf");
    Files.writeString(conf, UserspaceRunTest.conf(vip, backend.getAddress().getPort()));
  }

  @AfterEach
  void cleanUp() throws Exception {
    for (Process p : processes) {
      if (p.isAlive()) {
        p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    }
    backend.stop(0);
  }

  /** Starts fairway run with stderr into {@code log}; journal: JOURNAL_STREAM is that file. */
  Process start(Path log, boolean journal, String... extra) throws Exception {
    Files.createFile(log);
    String id = Files.getAttribute(log, "unix:dev") + ":" + Files.getAttribute(log, "unix:ino");
    List<String> cmd =
        new ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty(
                    "surefire.test.class.path", System.getProperty("java.class.path")),
                "io.fairway.cli.Main",
                "run",
                "--userspace",
                "-f",
                conf.toString(),
                "--admin",
                "off"));
    cmd.addAll(List.of(extra));
    ProcessBuilder pb =
        new ProcessBuilder(cmd)
            .redirectError(log.toFile())
            .redirectOutput(ProcessBuilder.Redirect.DISCARD);
    pb.environment().put("JOURNAL_STREAM", journal ? id : "1:1");
    Process p = pb.start();
    processes.add(p);
    return p;
  }

  static void stop(Process p) throws Exception {
    p.destroy();
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).isZero();
  }

  @Test
  void inTheJournalLinesCarryTheirPriorityAndNoTimestamp() throws Exception {
    Path log = dir.resolve("journal.log");
    Process p = start(log, true);
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> Files.readString(log).contains("Daemon: running"));
    Files.writeString(conf, "virtual_server 127.0.0.1 " + vip + " {\n    lb_algo nosuch\n");
    new ProcessBuilder("kill", "-HUP", Long.toString(p.pid())).start().waitFor();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> Files.readString(log).contains("reload refused"));
    stop(p);
    List<String> lines = Files.readAllLines(log);
    assertThat(lines)
        .allMatch(l -> l.matches("<[0-7]>[A-Z]+ +\\S+: .*"), "priority prefix, no timestamp");
    assertThat(lines).anyMatch(l -> l.startsWith("<6>INFO  Daemon: running "));
    assertThat(lines).anyMatch(l -> l.startsWith("<3>ERROR Daemon: reload refused"));
  }

  @Test
  void keepalivedsFacilityOptionGoesIntoThePrefix() throws Exception {
    Path log = dir.resolve("facility.log");
    Process p = start(log, true, "-S", "3", "-l");
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> Files.readString(log).contains("Daemon: running"));
    stop(p);
    // local3 = 19; 19 * 8 + info (6) = 158.
    assertThat(Files.readAllLines(log)).anyMatch(l -> l.startsWith("<158>INFO  Daemon: running "));
  }

  @Test
  void offTheJournalLinesAreAsOnATerminal() throws Exception {
    Path log = dir.resolve("terminal.log");
    Process p = start(log, false);
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> Files.readString(log).contains("Daemon: running"));
    stop(p);
    assertThat(Files.readAllLines(log))
        .isNotEmpty()
        .allMatch(
            l ->
                l.matches(
                    "\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}\\S* [A-Z]+ +\\S+: .*"));
  }

  /** keepalived's -D: Fairway's own loggers at debug (checker retries, proxy client errors). */
  @Test
  void detailedLoggingIsDebugForFairwaysLoggers() {
    var logger = (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger("io.fairway");
    var before = logger.getLevel();
    try {
      CliRun r =
          CliRun.run("run", "-D", "-f", dir.resolve("missing.conf").toString(), "--admin", "off");
      assertThat(r.code()).isEqualTo(1);
      assertThat(
              org.slf4j.LoggerFactory.getLogger("io.fairway.check.engine.VirtualServerState")
                  .isDebugEnabled())
          .isTrue();
    } finally {
      logger.setLevel(before);
    }
  }

  @Test
  void aFacilityOutsideLocal0To7IsAUsageError() {
    CliRun r = CliRun.run("run", "-S", "9", "-f", conf.toString(), "--admin", "off");
    assertThat(r.code()).isEqualTo(Main.EXIT_USAGE);
    assertThat(r.err().strip())
        .isEqualTo("fairway: -S: facility must be 0..7 (local0..local7), got 9");
  }
}
