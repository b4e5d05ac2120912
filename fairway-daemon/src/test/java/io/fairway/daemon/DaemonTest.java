package io.fairway.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.check.checker.CheckResult;
import io.fairway.check.checker.Checker;
import io.fairway.check.config.CheckSpecs;
import io.fairway.check.engine.CheckEngine;
import io.fairway.check.engine.ManualClock;
import io.fairway.check.spec.CheckSpec;
import io.fairway.check.spec.TcpCheckSpec;
import io.fairway.testkit.RecordingTable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The daemon end to end on a keepalived.conf file, with scripted checker answers on a manual clock
 * and an in-memory table: start, verdicts, reload by diff, an invalid reload refused, shutdown.
 */
class DaemonTest {
  @TempDir Path dir;
  final RecordingTable table = new RecordingTable();
  final ManualClock clock = new ManualClock();

  /** TCP_CHECK answers by "address:port"; missing = up. */
  final Map<String, Boolean> up = new ConcurrentHashMap<>();

  /** Dynamic weight contributions by "address:port", as misc_dynamic would report them. */
  final Map<String, Long> weights = new ConcurrentHashMap<>();

  // Started by each test that needs it, before any use; closed after each when started.
  @SuppressWarnings("NullAway.Init")
  Daemon daemon;

  Daemon daemon(String conf) throws Exception {
    Path file = dir.resolve("keepalived.conf");
    Files.writeString(file, conf);
    daemon =
        new Daemon(
            file,
            new KeepalivedLoader(false, CheckSpecs::from),
            table,
            () ->
                CheckEngine.builder()
                    .scheduler(clock)
                    .checkerFactory((vs, rs, spec) -> scripted(spec)),
            Duration.ZERO,
            Clock.systemUTC());
    return daemon;
  }

  Checker scripted(CheckSpec spec) {
    String target =
        ((TcpCheckSpec) spec).target().getAddress().getHostAddress()
            + ":"
            + ((TcpCheckSpec) spec).target().getPort();
    return new Checker() {
      @Override
      public void check(Consumer<CheckResult> done) {
        CheckResult ok =
            weights.containsKey(target)
                ? CheckResult.ok("connected").withWeightDelta(weights.get(target))
                : CheckResult.ok("connected");
        done.accept(up.getOrDefault(target, true) ? ok : CheckResult.fail("connection refused"));
      }

      @Override
      public Duration deadline() {
        return Duration.ofSeconds(1);
      }
    };
  }

  void rewrite(String conf) throws Exception {
    Files.writeString(dir.resolve("keepalived.conf"), conf);
  }

  void tick() {
    clock.advance(Duration.ofSeconds(30));
  }

  @AfterEach
  void stop() {
    if (daemon != null) {
      daemon.stop();
    }
  }

  static String conf(String extra, String servers) {
    return """
        virtual_server 10.16.0.1 80 {
            delay_loop 5
            lb_algo rr
            lb_kind NAT
            protocol TCP
            %s
            %s
        }
        """
        .formatted(extra, servers);
  }

  static String rs(String addr, int weight) {
    return """
        real_server %s 80 {
            weight %d
            TCP_CHECK {
                connect_timeout 1
            }
        }
        """
        .formatted(addr, weight);
  }

  @Test
  void startInstallsVerdictsFlowAndStopRemovesEverything() throws Exception {
    daemon(conf("", rs("10.16.1.1", 1) + rs("10.16.1.2", 2))).start();
    assertThat(table.lines())
        .containsExactly(
            "TCP 10.16.0.1:80 -> 10.16.1.1:80 w=1",
            "TCP 10.16.0.1:80 -> 10.16.1.2:80 w=2",
            "TCP 10.16.0.1:80 rr");

    up.put("10.16.1.1:80", false);
    tick();
    assertThat(table.lines())
        .containsExactly("TCP 10.16.0.1:80 -> 10.16.1.2:80 w=2", "TCP 10.16.0.1:80 rr");
    assertThat(daemon.status())
        .contains("10.16.1.1:80")
        .contains("down")
        .contains("connection refused");

    daemon.stop();
    assertThat(table.lines()).isEmpty();
  }

  @Test
  void omegaScriptsRunWhenTheDaemonStopsButNotOnReload() throws Exception {
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
    Path scripts = Files.createDirectories(dir.resolve("scripts"));
    Files.setPosixFilePermissions(scripts, PosixFilePermissions.fromString("rwxrwxrwx"));
    Path log = scripts.resolve("log");
    Path note = scripts.resolve("note.sh");
    Files.writeString(note, "#!/bin/sh\necho \"$1\" >> " + log + "\n");
    Files.setPosixFilePermissions(note, PosixFilePermissions.fromString("rwxr-xr-x"));
    String conf =
        conf(
            "omega\n    quorum_down \"" + note + " quorum-down\"",
            """
        real_server 10.16.1.1 80 {
            notify_down "%s rs-down"
            TCP_CHECK {
                connect_timeout 1
            }
        }
        """
                .formatted(note));
    daemon(conf).start();
    rewrite(conf.replace("delay_loop 5", "delay_loop 6"));
    daemon.reload();
    assertThat(log).as("a reload announces nothing").doesNotExist();

    daemon.stop();
    assertThat(Files.readAllLines(log)).containsExactlyInAnyOrder("rs-down", "quorum-down");
  }

  @Test
  void aReloadKeepsADynamicWeightInsteadOfResettingIt() throws Exception {
    String conf = conf("", rs("10.16.1.1", 1) + rs("10.16.1.2", 2));
    daemon(conf).start();
    weights.put("10.16.1.2:80", 3L);
    tick();
    assertThat(table.lines()).contains("TCP 10.16.0.1:80 -> 10.16.1.2:80 w=5");

    rewrite(conf.replace("delay_loop 5", "delay_loop 6"));
    assertThat(daemon.reload()).isNull();
    // Right after the reload, before any check ran again: the weight the checker reported stays.
    assertThat(table.lines()).contains("TCP 10.16.0.1:80 -> 10.16.1.2:80 w=5");
  }

  @Test
  void anInvalidReloadIsRefusedAndTheRunningConfigurationKeepsWorking() throws Exception {
    daemon(conf("", rs("10.16.1.1", 1) + rs("10.16.1.2", 1))).start();
    rewrite(conf("lb_algo nosuch", rs("10.16.1.1", 1)));

    String refused = daemon.reload();

    assertThat(refused).contains("keepalived.conf:").doesNotContain("\n");
    assertThat(daemon.reloads()).isZero();
    up.put("10.16.1.2:80", false);
    tick();
    assertThat(table.lines())
        .containsExactly("TCP 10.16.0.1:80 -> 10.16.1.1:80 w=1", "TCP 10.16.0.1:80 rr");
  }

  @Test
  void aReloadAppliesTheDifferenceAndAFailedServerStaysOutUntilItPasses() throws Exception {
    daemon(conf("", rs("10.16.1.1", 1) + rs("10.16.1.2", 1) + rs("10.16.1.3", 1))).start();
    up.put("10.16.1.2:80", false);
    tick();

    // Change a weight, drop .3, add .4 (up) and keep the failed .2.
    rewrite(conf("", rs("10.16.1.1", 5) + rs("10.16.1.2", 1) + rs("10.16.1.4", 1)));
    assertThat(daemon.reload()).isNull();
    assertThat(table.lines())
        .containsExactly(
            "TCP 10.16.0.1:80 -> 10.16.1.1:80 w=5",
            "TCP 10.16.0.1:80 -> 10.16.1.4:80 w=1",
            "TCP 10.16.0.1:80 rr");

    up.put("10.16.1.2:80", true);
    tick();
    assertThat(table.lines()).contains("TCP 10.16.0.1:80 -> 10.16.1.2:80 w=1");
  }

  @Test
  void coldStartAgainstADeadPoolServesTheSorryServer() throws Exception {
    up.put("10.16.1.1:80", false);
    daemon(conf("sorry_server 10.16.9.9 80\n alpha", rs("10.16.1.1", 1))).start();
    assertThat(table.lines())
        .containsExactly("TCP 10.16.0.1:80 -> 10.16.9.9:80 w=1", "TCP 10.16.0.1:80 rr");

    up.put("10.16.1.1:80", true);
    tick();
    assertThat(table.lines())
        .containsExactly("TCP 10.16.0.1:80 -> 10.16.1.1:80 w=1", "TCP 10.16.0.1:80 rr");
  }

  @Test
  void driftIsRepaired() throws Exception {
    daemon(conf("", rs("10.16.1.1", 1))).start();
    table.dests.values().forEach(Map::clear);
    daemon.repairDrift();
    assertThat(table.lines()).contains("TCP 10.16.0.1:80 -> 10.16.1.1:80 w=1");
  }
}
