package io.fairway.config.model;

import io.fairway.config.model.base.Location;
import io.fairway.config.model.base.Script;
import java.time.Duration;

/**
 * {@code MISC_CHECK}: runs a command; exit 0 is success, 1 failure, and with {@code misc_dynamic}
 * an exit status 2..255 is success with weight {@code status - 2}.
 *
 * @param script the command and its user/group ({@code misc_path}, {@code user})
 * @param timeout how long the command may run ({@code misc_timeout}, default = delay loop)
 * @param dynamic true if the exit status sets the weight ({@code misc_dynamic})
 */
public record MiscCheck(
    Location location, CheckerTiming timing, Script script, Duration timeout, boolean dynamic)
    implements HealthCheck {
  @Override
  public String keyword() {
    return "MISC_CHECK";
  }
}
