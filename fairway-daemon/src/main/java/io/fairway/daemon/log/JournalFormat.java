package io.fairway.daemon.log;

import ch.qos.logback.classic.Level;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * Whether this process logs into the journal, and the syslog priority of a level.
 *
 * <p>systemd sets {@code JOURNAL_STREAM=DEV:INODE} for a service whose stderr (or stdout) is a
 * journal stream; a child whose stderr was redirected inherits the variable, so it is believed only
 * when stderr is that very stream (systemd.exec(5) asks programs to compare).
 */
public final class JournalFormat {
  /** syslog(3)'s LOG_LOCAL0: keepalived's {@code -S N} means local{@code N}. */
  static final int LOCAL0 = 16;

  private static final boolean JOURNAL =
      stderrIsJournal(System.getenv(), Path.of("/proc/self/fd/2"));
  private static volatile int facility = -1;

  private JournalFormat() {}

  /** Whether lines go to the journal (with a priority prefix and no timestamp of their own). */
  public static boolean journal() {
    return JOURNAL;
  }

  /**
   * keepalived's {@code -S N}: lines carry facility local{@code N} (0..7) in their prefix.
   *
   * @throws IllegalArgumentException N outside 0..7
   */
  public static void localFacility(int n) {
    if (n < 0 || n > 7) {
      throw new IllegalArgumentException("facility must be 0..7 (local0..local7), got " + n);
    }
    facility = LOCAL0 + n;
  }

  /** The {@code <N>} prefix for a level: facility × 8 + severity, or the severity alone. */
  static String prefix(Level level) {
    int f = facility;
    return "<" + (f < 0 ? severity(level) : f * 8 + severity(level)) + ">";
  }

  /** syslog severities: error 3, warning 4, info 6, debug 7. */
  static int severity(Level level) {
    return switch (level.toInt()) {
      case Level.ERROR_INT -> 3;
      case Level.WARN_INT -> 4;
      case Level.INFO_INT -> 6;
      default -> 7;
    };
  }

  static boolean stderrIsJournal(Map<String, String> env, Path stderr) {
    String stream = env.get("JOURNAL_STREAM");
    if (stream == null || !stream.matches("\\d+:\\d+")) {
      return false;
    }
    try {
      Object dev = Files.getAttribute(stderr, "unix:dev");
      Object ino = Files.getAttribute(stderr, "unix:ino");
      return stream.equals(dev + ":" + ino);
    } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
      return false;
    }
  }
}
