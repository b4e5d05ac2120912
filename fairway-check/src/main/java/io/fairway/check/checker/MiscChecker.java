package io.fairway.check.checker;

import io.fairway.check.spec.MiscCheckSpec;
import io.fairway.os.script.ScriptExecutor;
import io.fairway.os.script.ScriptOutcome;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * MISC_CHECK: runs the script on the bounded script pool. keepalived's mapping: exit 0 is success
 * (dynamic weight reset); with misc_dynamic, exit 2..255 is success and makes the server's weight
 * {@code code - 2}; anything else, a timeout or a kill is failure and removes this checker's weight
 * contribution.
 */
final class MiscChecker implements Checker {
  private final MiscCheckSpec spec;
  private final int configuredWeight;
  private final ScriptExecutor scripts;

  MiscChecker(MiscCheckSpec spec, int configuredWeight, ScriptExecutor scripts) {
    this.spec = spec;
    this.configuredWeight = configuredWeight;
    this.scripts = scripts;
  }

  @Override
  public void check(Consumer<CheckResult> done) {
    scripts.run(spec.script(), spec.timeout()).thenAccept(o -> done.accept(interpret(o)));
  }

  CheckResult interpret(ScriptOutcome o) {
    return interpret(o, spec.dynamic(), configuredWeight, spec.timeout());
  }

  /** The exit-code mapping, separate so that it is tested exhaustively. */
  static CheckResult interpret(
      ScriptOutcome o, boolean dynamic, int configuredWeight, Duration timeout) {
    if (o.error() != null) {
      return CheckResult.fail(o.error()).withWeightDelta(0);
    }
    if (o.timedOut()) {
      return CheckResult.fail("timed out after " + timeout.toMillis() + " ms, process group killed")
          .withWeightDelta(0);
    }
    int code = o.exitCode();
    if (code == 0) {
      return CheckResult.ok("exit 0").withWeightDelta(0);
    }
    if (dynamic && code >= 2 && code <= 255) {
      // keepalived: cur_weight = status - 2 - iweight, so the server's weight becomes status - 2.
      return CheckResult.ok("exit " + code + ": weight " + (code - 2))
          .withWeightDelta((long) code - 2 - configuredWeight);
    }
    return CheckResult.fail("exit " + code).withWeightDelta(0);
  }

  @Override
  public Duration deadline() {
    // timeout, then SIGTERM and SIGKILL grace periods, plus time waiting for a pool thread.
    return spec.timeout().plusSeconds(10);
  }
}
