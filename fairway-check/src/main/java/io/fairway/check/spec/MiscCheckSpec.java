package io.fairway.check.spec;

import io.fairway.os.script.ScriptSpec;
import java.time.Duration;
import java.util.Objects;

/**
 * {@code MISC_CHECK}: run a script; exit 0 is success, 1 failure. With {@code misc_dynamic}, exit
 * 2..255 is success and sets the server's weight to {@code code - 2}. A script that outlives {@code
 * timeout} is killed with its whole process group (SIGTERM, then SIGKILL 2 s later) and counts as a
 * failure.
 *
 * @param script the script and who runs it
 * @param timeout {@code misc_timeout}
 * @param dynamic {@code misc_dynamic}
 * @param timing timing (keepalived's default retry for MISC_CHECK is 0)
 */
public record MiscCheckSpec(
    ScriptSpec script, Duration timeout, boolean dynamic, CheckTiming timing) implements CheckSpec {
  public MiscCheckSpec {
    Objects.requireNonNull(script, "script");
    Objects.requireNonNull(timeout, "timeout");
    Objects.requireNonNull(timing, "timing");
  }

  @Override
  public String describe() {
    return "MISC_CHECK " + script.program();
  }
}
