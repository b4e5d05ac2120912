package io.fairway.daemon.admin;

import io.fairway.daemon.Durations;
import java.time.Duration;

/**
 * The admin listener's tuning system properties ({@code -Dfairway.admin.requestTimeoutSeconds},
 * {@code -Dfairway.admin.sessionSeconds}): whole seconds from 1 to {@link Durations#MAX}, like
 * every other duration the API and CLI take. Read when a listener starts, so a bad value is one
 * line at start ({@code fairway: --admin ...: -Dfairway.admin.X=V: ...}), not an error in a class
 * initialiser or an overflow later.
 */
public final class AdminProperties {
  private AdminProperties() {}

  /**
   * The property's value, or {@code dflt} when it is not set.
   *
   * @throws IllegalArgumentException not whole seconds from 1 to 86400 (one line naming it)
   */
  public static Duration seconds(String name, Duration dflt) {
    String v = System.getProperty(name);
    if (v == null) {
      return dflt;
    }
    long max = Durations.MAX.toSeconds();
    long s;
    try {
      s = Long.parseLong(v.strip());
    } catch (NumberFormatException e) {
      s = -1;
    }
    if (s < 1 || s > max) {
      String shown = v.length() > 40 ? v.substring(0, 40) + "..." : v;
      throw new IllegalArgumentException(
          "-D" + name + "=" + shown + ": expected whole seconds from 1 to " + max);
    }
    return Duration.ofSeconds(s);
  }
}
