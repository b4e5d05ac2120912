package io.fairway.check.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fairway.check.CheckConfigException;
import io.fairway.check.QuorumChanged;
import io.fairway.check.RealServerVerdict;
import io.fairway.check.ServerStateChanged;
import io.fairway.check.WeightChanged;
import io.fairway.check.spec.CheckTiming;
import io.fairway.check.spec.FileCheckSpec;
import io.fairway.check.spec.MiscCheckSpec;
import io.fairway.check.spec.RealServerSpec;
import io.fairway.check.spec.TcpCheckSpec;
import io.fairway.check.spec.VirtualServerSpec;
import io.fairway.os.script.ScriptSpec;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The whole engine with real checkers: real sockets, real files, real scripts. */
class EngineIntegrationTest {
  @TempDir Path tmp;

  @Test
  void aListenerThatDiesIsDeclaredDead() throws Exception {
    // The latency bound (delay_loop + connect_timeout) is measured by bench/check-tcp-10k.sh, not
    // asserted here:
    // a shared CI machine makes wall-clock bounds flaky. The scheduling rule itself is exact in
    // EngineRulesTest.
    CheckTiming t =
        new CheckTiming(
            Duration.ofMillis(200),
            Duration.ofMillis(300),
            0,
            Duration.ofMillis(100),
            Duration.ofMillis(200),
            false,
            1);
    // The recorder only reads the clock's time; nothing is scheduled on it, so it needs no
    // executor.
    @SuppressWarnings("NullAway")
    ExecutorClock clock = new ExecutorClock(null);
    Recorder rec = new Recorder(clock);
    ServerSocket s = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread acceptor =
        new Thread(
            () -> {
              while (true) {
                try {
                  s.accept().close();
                  accepted.incrementAndGet();
                } catch (Exception e) {
                  return;
                }
              }
            });
    acceptor.start();
    var rs =
        RealServerSpec.of(
            "web1", 1, new TcpCheckSpec(new InetSocketAddress("127.0.0.1", s.getLocalPort()), t));
    try (CheckEngine engine = CheckEngine.builder().listener(rec).build()) {
      engine.start(List.of(VirtualServerSpec.of("vs", List.of(rs), 1, 0)));
      await().atMost(Duration.ofSeconds(10)).until(() -> accepted.get() >= 2);
      assertThat(rec.events).isEmpty();
      s.close();
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> !rec.of(ServerStateChanged.class).isEmpty());
      ServerStateChanged e = rec.of(ServerStateChanged.class).get(0);
      assertThat(e.alive()).isFalse();
      assertThat(e.reason().observation()).isEqualTo("connection refused");
      assertThat(rec.of(QuorumChanged.class))
          .singleElement()
          .extracting(QuorumChanged::up)
          .isEqualTo(false);
    }
    acceptor.join(1000);
  }

  /**
   * Connections the test listener accepted: proof that checks ran and passed before the listener
   * dies.
   */
  private final java.util.concurrent.atomic.AtomicInteger accepted =
      new java.util.concurrent.atomic.AtomicInteger();

  @Test
  void rewritingATrackFileDrainsAndRestoresTheServer() throws Exception {
    ManualClock clock = new ManualClock();
    Recorder rec = new Recorder(clock);
    Path f = tmp.resolve("maint");
    Files.writeString(f, "0\n");
    CheckTiming t = CheckTiming.of(Duration.ofSeconds(5), Duration.ofSeconds(1));
    var rs = RealServerSpec.of("web1", 100, new FileCheckSpec("maint", f, 100, false, t));
    try (CheckEngine engine = CheckEngine.builder().listener(rec).scheduler(clock).build()) {
      engine.start(List.of(VirtualServerSpec.of("vs", List.of(rs), 1, 0)));
      clock.advance(Duration.ofSeconds(7));
      assertThat(rec.events).isEmpty();
      Files.writeString(f, "-1\n"); // drain: 100 + (-1 x 100) = 0
      clock.advance(Duration.ofSeconds(1)); // track files are re-read every min(delay_loop, 1 s)
      assertThat(rec.of(WeightChanged.class))
          .singleElement()
          .satisfies(
              w -> {
                assertThat(w.weight()).isZero();
                assertThat(w.alive()).isTrue();
                assertThat(w.reason().observation()).isEqualTo("value -1: weight -100");
              });
      Files.writeString(f, "-2147483648\n"); // fault: down at once, no retries
      clock.advance(Duration.ofSeconds(1));
      assertThat(rec.of(ServerStateChanged.class))
          .singleElement()
          .extracting(ServerStateChanged::alive)
          .isEqualTo(false);
      Files.writeString(f, "0\n"); // back in service
      clock.advance(Duration.ofSeconds(1));
      assertThat(rec.of(ServerStateChanged.class))
          .extracting(ServerStateChanged::alive)
          .containsExactly(false, true);
      assertThat(engine.status().get(0).servers().get(0).weight()).isEqualTo(100);
    }
  }

  @Test
  void aTrackFileIsReadAtLoadSoAServerInMaintenanceNeverStartsInThePool() throws Exception {
    ManualClock clock = new ManualClock();
    Recorder rec = new Recorder(clock);
    Path fault = tmp.resolve("fault");
    Files.writeString(fault, "1\n");
    Path drained = tmp.resolve("drained");
    Files.writeString(drained, "-1\n");
    CheckTiming t = CheckTiming.of(Duration.ofSeconds(5), Duration.ofSeconds(1));
    var down = RealServerSpec.of("down", 5, new FileCheckSpec("fault", fault, 0, false, t));
    var zero = RealServerSpec.of("zero", 5, new FileCheckSpec("drained", drained, 5, false, t));
    try (CheckEngine engine = CheckEngine.builder().listener(rec).scheduler(clock).build()) {
      engine.start(List.of(VirtualServerSpec.of("vs", List.of(down, zero), 1, 0)));
      assertThat(rec.initial.get(0).servers())
          .containsExactly(
              new RealServerVerdict("down", false, 5), new RealServerVerdict("zero", true, 0));
      assertThat(rec.initial.get(0).quorumUp()).isFalse();
      Files.writeString(fault, "0\n");
      clock.advance(Duration.ofSeconds(3));
      assertThat(rec.of(ServerStateChanged.class))
          .singleElement()
          .extracting(ServerStateChanged::alive)
          .isEqualTo(true);
    }
  }

  @Test
  void miscDynamicScriptMovesTheWeight() throws Exception {
    ManualClock clock = new ManualClock();
    Recorder rec = new Recorder(clock);
    Path dir = Files.createDirectories(tmp.resolve("s"));
    Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxr-xr-x"));
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
    Path code = dir.resolve("code");
    Files.writeString(code, "7");
    Files.setPosixFilePermissions(code, PosixFilePermissions.fromString("rw-rw-rw-"));
    Path script = dir.resolve("weight.sh");
    Files.writeString(script, "#!/bin/sh\nexit $(cat " + code + ")\n");
    Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
    CheckTiming t = CheckTiming.of(Duration.ofSeconds(5), Duration.ofSeconds(1)).withRetry(0);
    var rs =
        RealServerSpec.of(
            "app",
            1,
            new MiscCheckSpec(ScriptSpec.of(script.toString()), Duration.ofSeconds(5), true, t));
    try (CheckEngine engine = CheckEngine.builder().listener(rec).scheduler(clock).build()) {
      engine.start(List.of(VirtualServerSpec.of("vs", List.of(rs), 1, 0)));
      clock.advance(Duration.ofSeconds(6)); // starts the script on the pool
      await().atMost(Duration.ofSeconds(5)).until(() -> !rec.of(WeightChanged.class).isEmpty());
      assertThat(rec.of(WeightChanged.class).get(0).weight()).isEqualTo(5);
      Files.writeString(code, "1");
      clock.advance(Duration.ofSeconds(6));
      await()
          .atMost(Duration.ofSeconds(5))
          .until(() -> !rec.of(ServerStateChanged.class).isEmpty());
      assertThat(rec.of(ServerStateChanged.class).get(0).reason().observation())
          .isEqualTo("exit 1");
    }
  }

  @Test
  void quorumAndNotifyScriptsRun() throws Exception {
    ManualClock clock = new ManualClock();
    Recorder rec = new Recorder(clock);
    Path dir = Files.createDirectories(tmp.resolve("n"));
    Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxr-xr-x"));
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
    Path log = dir.resolve("log");
    Path script = dir.resolve("note.sh");
    Files.writeString(script, "#!/bin/sh\necho \"$1\" >> " + log + "\n");
    Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
    Path f = dir.resolve("maint");
    Files.writeString(f, "0");
    CheckTiming t = CheckTiming.of(Duration.ofSeconds(1), Duration.ofSeconds(1));
    var rs =
        new RealServerSpec(
            "web1",
            1,
            List.of(new FileCheckSpec("m", f, 0, false, t)),
            ScriptSpec.of(script.toString(), "rs-up"),
            ScriptSpec.of(script.toString(), "rs-down"));
    var vs =
        VirtualServerSpec.of("vs", List.of(rs), 1, 0)
            .withScripts(
                ScriptSpec.of(script.toString(), "quorum-up"),
                ScriptSpec.of(script.toString(), "quorum-down"));
    try (CheckEngine engine = CheckEngine.builder().listener(rec).scheduler(clock).build()) {
      engine.start(List.of(vs));
      await()
          .atMost(Duration.ofSeconds(5))
          .until(() -> Files.exists(log) && Files.readString(log).contains("quorum-up"));
      Files.writeString(f, "1");
      clock.advance(Duration.ofSeconds(2));
      // rs-down and quorum-down are two scripts started together on the pool: wait for both.
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> Files.readAllLines(log).containsAll(List.of("rs-down", "quorum-down")));
      assertThat(Files.readAllLines(log)).contains("quorum-up", "rs-down", "quorum-down");
    }
  }

  @Test
  void omegaRunsNotifyDownAndQuorumDownAtShutdownOnlyWithOmegaAndNeverOnClose() throws Exception {
    Path dir = Files.createDirectories(tmp.resolve("o"));
    Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxr-xr-x"));
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
    Path log = dir.resolve("log");
    Path script = dir.resolve("note.sh");
    Files.writeString(script, "#!/bin/sh\necho \"$1\" >> " + log + "\n");
    Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
    for (boolean omega : new boolean[] {false, true}) {
      Files.deleteIfExists(log);
      var rs =
          new RealServerSpec(
              "web1", 1, List.of(), null, ScriptSpec.of(script.toString(), "rs-down"));
      var vs =
          VirtualServerSpec.of("vs", List.of(rs), 1, 0)
              .withScripts(null, ScriptSpec.of(script.toString(), "quorum-down"))
              .withOmega(omega);
      try (CheckEngine engine =
          CheckEngine.builder()
              .listener(new Recorder(new ManualClock()))
              .scheduler(new ManualClock())
              .build()) {
        engine.start(List.of(vs));
      }
      assertThat(log).as("close() (a reload) runs no script").doesNotExist();
      CheckEngine engine =
          CheckEngine.builder()
              .listener(new Recorder(new ManualClock()))
              .scheduler(new ManualClock())
              .build();
      engine.start(List.of(vs));
      engine.shutdown();
      if (omega) {
        assertThat(Files.readAllLines(log)).containsExactlyInAnyOrder("rs-down", "quorum-down");
      } else {
        assertThat(log).doesNotExist();
      }
    }
  }

  @Test
  void badInputIsRejectedBeforeAnythingStarts() {
    Recorder rec = new Recorder(new ManualClock());
    CheckTiming t = CheckTiming.of(Duration.ofSeconds(1), Duration.ofSeconds(1));
    var good =
        RealServerSpec.of("ok", 1, new TcpCheckSpec(new InetSocketAddress("127.0.0.1", 9), t));
    var bad =
        new RealServerSpec("bad", 1, List.of(), null, ScriptSpec.of("/nonexistent/notify.sh"));
    try (CheckEngine engine = CheckEngine.builder().listener(rec).build()) {
      assertThatThrownBy(
              () -> engine.start(List.of(VirtualServerSpec.of("vs", List.of(good, bad), 1, 0))))
          .isInstanceOf(CheckConfigException.class)
          .hasMessage("vs bad notify_down: script /nonexistent/notify.sh does not exist");
      assertThat(rec.initial).isEmpty();
    }
  }
}
