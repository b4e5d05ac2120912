package io.fairway.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.check.checker.CheckResult;
import io.fairway.check.checker.Checker;
import io.fairway.check.config.CheckSpecs;
import io.fairway.check.engine.CheckEngine;
import io.fairway.check.engine.ManualClock;
import io.fairway.check.spec.CheckSpec;
import io.fairway.check.spec.TcpCheckSpec;
import io.fairway.table.Table;
import io.fairway.table.TableOp;
import io.fairway.testkit.FaultyTable;
import io.fairway.testkit.RecordingTable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A reload is all of it or none of it: when the table throws half way (here a RuntimeException, as
 * a table bug would), the previous plan and table come back, its checkers were never stopped and
 * keep applying verdicts, and reload says why in one line.
 */
class ReloadAtomicityTest {
  @TempDir Path dir;
  final RecordingTable map = new RecordingTable();

  /** Throws from setService while armed. */
  volatile boolean broken;

  final ManualClock clock = new ManualClock();
  final Map<String, Boolean> up = new ConcurrentHashMap<>();

  // Started by each test that needs it, before any use; closed after each when started.
  @SuppressWarnings("NullAway.Init")
  Daemon daemon;

  final Table table =
      new FaultyTable(map) {
        @Override
        protected void fault(TableOp op) {
          if (broken && op instanceof TableOp.SetService) {
            throw new IllegalStateException("table bug");
          }
        }
      };

  Checker scripted(CheckSpec spec) {
    String target = ((TcpCheckSpec) spec).target().getAddress().getHostAddress();
    return new Checker() {
      @Override
      public void check(Consumer<CheckResult> done) {
        done.accept(
            up.getOrDefault(target, true)
                ? CheckResult.ok("connected")
                : CheckResult.fail("connection refused"));
      }

      @Override
      public Duration deadline() {
        return Duration.ofSeconds(1);
      }
    };
  }

  static String conf(String algo, String... servers) {
    StringBuilder s =
        new StringBuilder(
            "virtual_server 10.16.0.1 80 {\n delay_loop 5\n lb_algo "
                + algo
                + "\n lb_kind NAT\n protocol TCP\n");
    for (String a : servers) {
      s.append(" real_server ")
          .append(a)
          .append(" 80 {\n  TCP_CHECK {\n   connect_timeout 1\n  }\n }\n");
    }
    return s.append("}\n").toString();
  }

  @AfterEach
  void stop() {
    if (daemon != null) {
      daemon.stop();
    }
  }

  @Test
  void aTableThatThrowsHalfWayLeavesTheOldPlanServingAndChecking() throws Exception {
    Path file = dir.resolve("keepalived.conf");
    Files.writeString(file, conf("rr", "10.16.1.1", "10.16.1.2"));
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
    daemon.start();
    List<String> before = map.lines();
    assertThat(before)
        .containsExactly(
            "TCP 10.16.0.1:80 -> 10.16.1.1:80 w=1",
            "TCP 10.16.0.1:80 -> 10.16.1.2:80 w=1",
            "TCP 10.16.0.1:80 rr");

    // The reload drops 10.16.1.2 (a delDest that succeeds) and changes the scheduler (a
    // setService that throws).
    Files.writeString(file, conf("wrr", "10.16.1.1"));
    broken = true;
    String why = daemon.reload();
    broken = false;

    assertThat(why).contains("table bug").contains("rolled back").doesNotContain("\n");
    assertThat(map.lines()).as("the table as before").isEqualTo(before);
    assertThat(daemon.plan().services().get(0).selection().algorithm()).isEqualTo("rr");
    assertThat(daemon.reloads()).isZero();

    // The old checkers never stopped: a failure is still applied.
    up.put("10.16.1.2", false);
    clock.advance(Duration.ofSeconds(30));
    assertThat(map.lines())
        .containsExactly("TCP 10.16.0.1:80 -> 10.16.1.1:80 w=1", "TCP 10.16.0.1:80 rr");
  }
}
