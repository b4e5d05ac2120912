package io.fairway.daemon.admin;

import java.time.Duration;

/**
 * {@code 30s}, {@code 500ms}, {@code 2m}, {@code 1h}, or plain seconds; what the API and CLI
 * accept.
 */
public final class Durations {
  private Durations() {}

  public static Duration parse(String s) {
    String t = s.strip();
    try {
      if (t.endsWith("ms")) {
        return check(Duration.ofMillis(Long.parseLong(t.substring(0, t.length() - 2))), s);
      }
      if (t.endsWith("s")) {
        return check(
            Duration.ofMillis((long) (Double.parseDouble(t.substring(0, t.length() - 1)) * 1000)),
            s);
      }
      if (t.endsWith("m")) {
        return check(Duration.ofSeconds(Long.parseLong(t.substring(0, t.length() - 1)) * 60), s);
      }
      if (t.endsWith("h")) {
        return check(Duration.ofHours(Long.parseLong(t.substring(0, t.length() - 1))), s);
      }
      return check(Duration.ofMillis((long) (Double.parseDouble(t) * 1000)), s);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "expected a duration like 30s, 500ms or 2m, got '" + s + "'");
    }
  }

  private static Duration check(Duration d, String s) {
    if (d.isNegative() || d.toHours() > 24) {
      throw new IllegalArgumentException("duration out of range (0 to 24h): '" + s + "'");
    }
    return d;
  }

  public static String format(Duration d) {
    return d.toMillis() % 1000 == 0 ? d.toSeconds() + "s" : d.toMillis() + "ms";
  }
}
