package io.fairway.check.checker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fairway.check.CheckConfigException;
import io.fairway.check.spec.CheckTiming;
import io.fairway.check.spec.FileCheckSpec;
import io.fairway.check.spec.MiscCheckSpec;
import io.fairway.os.script.ScriptOutcome;
import io.fairway.os.script.ScriptSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * MISC_CHECK with real scripts (each exit code, timeouts, privilege drop) and FILE_CHECK with real
 * files.
 */
class ScriptCheckersTest {
  static final CheckerHarness harness = new CheckerHarness();
  static final CheckTiming T =
      CheckTiming.of(Duration.ofSeconds(1), Duration.ofSeconds(1)).withRetry(0);
  @TempDir static Path tmp;

  @AfterAll
  static void close() {
    harness.close();
  }

  static MiscCheckSpec misc(Path script, boolean dynamic) {
    return new MiscCheckSpec(ScriptSpec.of(script.toString()), Duration.ofSeconds(5), dynamic, T);
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 1, 2, 3, 42, 254, 255})
  void eachExitCodeMapsAsKeepalivedDoes(int code) throws Exception {
    Path dir = Programs.openDir(tmp, "codes");
    Path s = Programs.script(dir, "exit" + code + ".sh", "exit " + code);
    CheckResult plain = CheckerHarness.once(harness.create(misc(s, false), 10));
    CheckResult dynamic = CheckerHarness.once(harness.create(misc(s, true), 10));
    assertThat(plain.success()).isEqualTo(code == 0);
    assertThat(plain.weightDelta().getAsLong()).isZero();
    if (code == 0) {
      assertThat(dynamic.success()).isTrue();
      assertThat(dynamic.weightDelta().getAsLong()).isZero();
    } else if (code == 1) {
      assertThat(dynamic.success()).isFalse();
      assertThat(dynamic.observation()).isEqualTo("exit 1");
    } else {
      // weight becomes code - 2: the delta is code - 2 - configured weight (10)
      assertThat(dynamic.success()).isTrue();
      assertThat(dynamic.weightDelta().getAsLong()).isEqualTo(code - 2 - 10);
      assertThat(dynamic.observation()).isEqualTo("exit " + code + ": weight " + (code - 2));
    }
  }

  @Test
  void exitCodeMappingIsExhaustive() {
    for (int code = 0; code <= 255; code++) {
      CheckResult r =
          MiscChecker.interpret(new ScriptOutcome(code, false, null), true, 5, Duration.ZERO);
      assertThat(r.success()).as("exit %d", code).isEqualTo(code != 1);
      assertThat(r.weightDelta().getAsLong()).isEqualTo(code >= 2 ? code - 2 - 5 : 0);
    }
    CheckResult timedOut =
        MiscChecker.interpret(new ScriptOutcome(-1, true, null), true, 5, Duration.ofSeconds(3));
    assertThat(timedOut.success()).isFalse();
    assertThat(timedOut.weightDelta().getAsLong()).isZero();
  }

  @Test
  void timeoutKillsTheWholeProcessGroup() throws Exception {
    Path dir = Programs.openDir(tmp, "timeout");
    Path pidFile = dir.resolve("child.pid");
    Path s = Programs.script(dir, "hang.sh", "sleep 300 &\necho $! > " + pidFile + "\nsleep 300");
    var spec = new MiscCheckSpec(ScriptSpec.of(s.toString()), Duration.ofMillis(500), false, T);
    long start = System.nanoTime();
    CheckResult r = CheckerHarness.once(harness.create(spec, 1));
    assertThat(r.success()).isFalse();
    assertThat(r.observation()).isEqualTo("timed out after 500 ms, process group killed");
    assertThat(Duration.ofNanos(System.nanoTime() - start))
        .isLessThan(Duration.ofSeconds(60)); // far below the script's 300 s, whatever the load
    long child = Long.parseLong(Files.readString(pidFile).trim());
    // The kill is sent; the child's exit is the kernel's, however loaded the machine.
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(20))
        .alias("background child of the script")
        .until(() -> !running(child));
  }

  /** Alive and not a zombie waiting for a (container) init to reap it. */
  static boolean running(long pid) throws Exception {
    Path stat = Path.of("/proc/" + pid + "/stat");
    if (!Files.exists(stat)) {
      return false;
    }
    try {
      String st = Files.readAllLines(stat).get(0);
      return st.charAt(st.lastIndexOf(')') + 2) != 'Z';
    } catch (java.io.IOException e) {
      return false;
    }
  }

  @Test
  void scriptsRunUnprivilegedByDefaultWhenWeAreRoot() throws Exception {
    Programs.requireRoot("dropping privileges");
    Path dir = Programs.openDir(tmp, "uid");
    Path out = dir.resolve("uid.txt");
    Path s = Programs.script(dir, "id.sh", "id -u > " + out);
    assertThat(CheckerHarness.once(harness.create(misc(s, false), 1)).success()).isTrue();
    assertThat(Files.readString(out).trim()).isEqualTo("65534");
    Files.delete(out);
    var asRoot =
        new MiscCheckSpec(
            new ScriptSpec(List.of(s.toString()), "root", null), Duration.ofSeconds(5), false, T);
    assertThat(CheckerHarness.once(harness.create(asRoot, 1)).success()).isTrue();
    assertThat(Files.readString(out).trim()).isEqualTo("0");
  }

  @Test
  void badScriptsAreLoadErrors() throws Exception {
    Path dir = Programs.openDir(tmp, "bad");
    assertThatThrownBy(() -> harness.create(misc(dir.resolve("missing.sh"), false), 1))
        .isInstanceOf(CheckConfigException.class)
        .hasMessage(
            "vs rs MISC_CHECK "
                + dir.resolve("missing.sh")
                + ": script "
                + dir.resolve("missing.sh")
                + " does not exist");
    Path noexec = dir.resolve("noexec.sh");
    Files.writeString(noexec, "#!/bin/sh\nexit 0\n");
    Files.setPosixFilePermissions(noexec, PosixFilePermissions.fromString("rw-r--r--"));
    if (!"root".equals(System.getProperty("user.name"))) {
      assertThatThrownBy(() -> harness.create(misc(noexec, false), 1))
          .hasMessageContaining("not executable");
    } else {
      assertThatThrownBy(() -> harness.create(misc(noexec, false), 1))
          .isInstanceOf(CheckConfigException.class)
          .hasMessageContaining("not executable");
    }
    Path writable = Programs.script(dir, "writable.sh", "exit 0");
    Files.setPosixFilePermissions(writable, PosixFilePermissions.fromString("rwxrwxrwx"));
    assertThatThrownBy(() -> harness.create(misc(writable, false), 1))
        .hasMessageContaining("writable by others");
    if ("root".equals(System.getProperty("user.name"))) {
      Path closed = Files.createDirectories(tmp.resolve("closed"));
      Files.setPosixFilePermissions(closed, PosixFilePermissions.fromString("rwx------"));
      Path hidden = Programs.script(closed, "hidden.sh", "exit 0");
      assertThatThrownBy(() -> harness.create(misc(hidden, false), 1))
          .hasMessageContaining("is in " + closed + ", which user nobody cannot enter");
    }
    var relative = new MiscCheckSpec(ScriptSpec.of("check.sh"), Duration.ofSeconds(1), false, T);
    assertThatThrownBy(() -> harness.create(relative, 1))
        .hasMessageContaining("must be an absolute path");
  }

  @Test
  void aSaturatedScriptPoolFailsChecksInsteadOfQueueingForever() throws Exception {
    Path dir = Programs.openDir(tmp, "pool");
    Path slow = Programs.script(dir, "slow.sh", "sleep 1");
    try (var pool = new io.fairway.os.script.ScriptExecutor(1, 1)) {
      var running = pool.run(ScriptSpec.of(slow.toString()), Duration.ofSeconds(5));
      var queued = pool.run(ScriptSpec.of(slow.toString()), Duration.ofSeconds(5));
      var rejected = pool.run(ScriptSpec.of(slow.toString()), Duration.ofSeconds(5));
      assertThat(rejected.get().describe()).isEqualTo("script pool saturated");
      assertThat(running.get().exitCode()).isZero();
      assertThat(queued.get().exitCode()).isZero();
    }
  }

  @Test
  void trackFileValueTimesWeight() {
    assertThat(FileChecker.evaluate("0\n", 10, false).weightDelta().getAsLong()).isZero();
    assertThat(FileChecker.evaluate("5", 10, false).weightDelta().getAsLong()).isEqualTo(50);
    assertThat(FileChecker.evaluate("5", 10, true).weightDelta().getAsLong()).isEqualTo(-50);
    assertThat(FileChecker.evaluate("-1", 254, false).weightDelta().getAsLong()).isEqualTo(-254);
    assertThat(FileChecker.evaluate("0x10", 1, false).weightDelta().getAsLong()).isEqualTo(16);
    assertThat(FileChecker.evaluate("010", 1, false).weightDelta().getAsLong()).isEqualTo(8);
    // weight 0: any non-zero value is a failure
    assertThat(FileChecker.evaluate("0", 0, false).success()).isTrue();
    assertThat(FileChecker.evaluate("3", 0, false).success()).isFalse();
    // at or below INT32_MIN: fault, checker down
    assertThat(FileChecker.evaluate("-2147483648", 1, false).success()).isFalse();
    assertThat(FileChecker.evaluate("-2147483647", 1, false).success()).isTrue();
    assertThat(FileChecker.evaluate("99999999999999999", 254, true).success()).isFalse();
    // huge positive products are capped at INT32_MAX rather than overflowing
    assertThat(FileChecker.evaluate("99999999999999999", 254, false).weightDelta().getAsLong())
        .isEqualTo(Integer.MAX_VALUE);
    assertThat(FileChecker.evaluate("abc", 1, false).success()).isFalse();
  }

  @Test
  void unreadableTrackFileIsALoadErrorAndARuntimeFailure() throws Exception {
    var missing = new FileCheckSpec("maint", tmp.resolve("nope"), 1, false, T);
    assertThatThrownBy(() -> harness.create(missing, 1))
        .isInstanceOf(CheckConfigException.class)
        .hasMessage(
            "vs rs FILE_CHECK maint: track file " + tmp.resolve("nope") + " does not exist");
    Path f = tmp.resolve("vanishing");
    Files.writeString(f, "1");
    Checker c = harness.create(new FileCheckSpec("v", f, 1, false, T), 1);
    assertThat(CheckerHarness.once(c).success()).isTrue();
    Files.delete(f);
    CheckResult r = CheckerHarness.once(c);
    assertThat(r.success()).isFalse();
    assertThat(r.observation()).startsWith("cannot read " + f);
  }
}
