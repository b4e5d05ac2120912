package io.fairway.daemon;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code 30s}, {@code 500ms}, {@code 2m}, {@code 1h}, or plain seconds; what the API and CLI
 * accept, from 0 to {@link #MAX}.
 */
public final class Durations {
  /** The longest duration accepted anywhere the API or CLI takes one. */
  public static final Duration MAX = Duration.ofHours(24);

  /** A number with at most 12 integer digits and 9 decimals, and an optional unit. */
  private static final Pattern FORM = Pattern.compile("(\\d{1,12}(?:\\.\\d{1,9})?)(ms|s|m|h)?");

  private Durations() {}

  /**
   * Parses a duration; the number is checked against {@link #MAX} before any arithmetic, so no
   * input overflows.
   *
   * @throws IllegalArgumentException not a duration, or out of range (one line naming the value)
   */
  public static Duration parse(String s) {
    String t = s == null ? "" : s.strip();
    Matcher m = FORM.matcher(t);
    if (!m.matches()) {
      throw new IllegalArgumentException(
          "expected a duration like 30s, 500ms or 2m, got '" + shorten(s) + "'");
    }
    String unit = m.group(2) == null ? "s" : m.group(2);
    BigDecimal nanosPerUnit =
        BigDecimal.valueOf(
            switch (unit) {
              case "ms" -> 1_000_000L;
              case "s" -> 1_000_000_000L;
              case "m" -> 60_000_000_000L;
              default -> 3_600_000_000_000L;
            });
    BigDecimal nanos = new BigDecimal(m.group(1)).multiply(nanosPerUnit);
    if (nanos.compareTo(BigDecimal.valueOf(MAX.toNanos())) > 0) {
      throw new IllegalArgumentException("duration out of range (0 to 24h): '" + shorten(s) + "'");
    }
    // At most 9 decimals of a millisecond: round to whole milliseconds, as before.
    return Duration.ofMillis(nanos.movePointLeft(6).longValue());
  }

  private static String shorten(String s) {
    if (s == null) {
      return "";
    }
    return s.length() > 40 ? s.substring(0, 40) + "..." : s;
  }

  public static String format(Duration d) {
    return d.toMillis() % 1000 == 0 ? d.toSeconds() + "s" : d.toMillis() + "ms";
  }
}
