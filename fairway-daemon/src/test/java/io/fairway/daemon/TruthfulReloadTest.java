package io.fairway.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fairway.check.checker.CheckResult;
import io.fairway.check.checker.Checker;
import io.fairway.check.config.CheckSpecs;
import io.fairway.check.engine.CheckEngine;
import io.fairway.check.engine.ManualClock;
import io.fairway.proxy.ProxyOptions;
import io.fairway.proxy.plane.ProxyTable;
import io.fairway.table.ServiceEntry;
import io.fairway.table.ServiceKey;
import io.fairway.table.Table;
import io.fairway.table.TableException;
import io.fairway.table.TableOp;
import io.fairway.testkit.FaultyTable;
import io.fairway.testkit.RecordingTable;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Start, reload and status say what is so when the table cannot do what the file asks: a port held
 * by another process, a table that refuses part of a change.
 */
class TruthfulReloadTest {
  @TempDir Path dir;
  final ManualClock clock = new ManualClock();

  // Started by each test that needs it, before any use; closed after each when started.
  @SuppressWarnings("NullAway.Init")
  Daemon daemon;

  @SuppressWarnings("NullAway.Init")
  Table table;

  @AfterEach
  void stop() throws Exception {
    if (daemon != null) {
      daemon.stop();
    }
    if (table != null) {
      table.close();
    }
  }

  Daemon daemon(Table t, String conf) throws Exception {
    table = t;
    Path file = dir.resolve("keepalived.conf");
    Files.writeString(file, conf);
    daemon =
        new Daemon(
            file,
            new KeepalivedLoader(true, CheckSpecs::from),
            t,
            () ->
                CheckEngine.builder().scheduler(clock).checkerFactory((vs, rs, spec) -> alwaysUp()),
            Duration.ZERO,
            Clock.systemUTC());
    return daemon;
  }

  static Checker alwaysUp() {
    return new Checker() {
      @Override
      public void check(Consumer<CheckResult> done) {
        done.accept(CheckResult.ok("connected"));
      }

      @Override
      public Duration deadline() {
        return Duration.ofSeconds(1);
      }
    };
  }

  static String vs(int port, int... backends) {
    StringBuilder sb =
        new StringBuilder(
            "virtual_server 127.0.0.1 "
                + port
                + " {\n    lb_algo rr\n    lb_kind PROXY\n"
                + "    protocol TCP\n");
    for (int b : backends) {
      sb.append("    real_server 127.0.0.1 ")
          .append(b)
          .append(
              " {\n        TCP_CHECK {\n            connect_timeout 1\n" + "        }\n    }\n");
    }
    return sb.append("}\n").toString();
  }

  static int freePort() throws Exception {
    return io.fairway.testkit.FreePorts.loopback();
  }

  static ProxyTable proxy() {
    return new ProxyTable(ProxyOptions.builder().ioThreads(1).build(), null);
  }

  @Test
  void aPortHeldByAnotherProcessIsReportedAsThatAtStart() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      Daemon d = daemon(proxy(), vs(taken.getLocalPort(), 9001));
      long pid = ProcessHandle.current().pid();
      assertThatThrownBy(d::start)
          .isInstanceOf(Loader.LoadException.class)
          .hasMessageContaining(
              "cannot listen on 127.0.0.1:" + taken.getLocalPort() + ": address already in use")
          .hasMessageContaining("(pid " + pid + ")")
          .hasMessageNotContaining("no such service");
    }
  }

  @Test
  void aReloadThatCannotListenIsRefusedWholeBeforeAnythingChanges() throws Exception {
    int a = freePort();
    ProxyTable t = proxy();
    daemon(t, vs(a, 9001)).start();
    List<ServiceEntry> before = t.list();
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      // Two changes: a new server for the running service, and a new service on a held port.
      Files.writeString(
          dir.resolve("keepalived.conf"), vs(a, 9001, 9002) + vs(taken.getLocalPort(), 9003));
      String result = daemon.reload();
      assertThat(result)
          .contains(
              "cannot listen on 127.0.0.1:" + taken.getLocalPort() + ": address already in use")
          .contains("held by");
      assertThat(daemon.reloads()).isZero();
      assertThat(t.list()).isEqualTo(before); // not even the new server of the first service
    }
    // The same file once the port is free is applied.
    assertThat(daemon.reload()).isNull();
    assertThat(t.list()).hasSize(2);
  }

  @Test
  void statusDoesNotInventASorryServerForAServiceMissingFromTheTable() throws Exception {
    int a = freePort();
    RecordingTable t = new RecordingTable();
    daemon(t, vs(a, 9001)).start();
    // Removed behind Fairway's back (ipvsadm -D, or a table that lost it): drift, not a sorry
    // server.
    t.delService(ServiceKey.of(io.fairway.table.Protocol.TCP, InetAddress.getLoopbackAddress(), a));
    String status = daemon.status();
    assertThat(status)
        .contains("NOT IN TABLE")
        .doesNotContain("sorry server serving")
        .contains("(not in the table: its service is not)");
  }

  @Test
  void aReloadTheTableRefusesInPartSaysSo() throws Exception {
    int a = freePort();
    int b = freePort();
    ServiceKey refused =
        ServiceKey.of(io.fairway.table.Protocol.TCP, InetAddress.getLoopbackAddress(), b);
    // A table that refuses to add one service, as a full or failing forwarder might.
    Table t =
        new FaultyTable(new RecordingTable()) {
          @Override
          protected void fault(TableOp op) throws TableException {
            if (op instanceof TableOp.AddService add && add.service().key().equals(refused)) {
              throw new TableException(
                  TableException.Reason.OTHER, refused + ": refused for the test");
            }
          }
        };
    daemon(t, vs(a, 9001)).start();
    Files.writeString(dir.resolve("keepalived.conf"), vs(a, 9001) + vs(b, 9002));
    // The new service is added at its server's first verdict, after the applier took the plan:
    // what the table refuses then is reported as such, not as "reloaded".
    assertThat(daemon.reload())
        .startsWith("partially applied; not applied: ")
        .contains("refused for the test");
    assertThat(daemon.status())
        .contains("127.0.0.1:" + b)
        .contains("NOT IN TABLE")
        .doesNotContain("sorry server serving");
  }
}
