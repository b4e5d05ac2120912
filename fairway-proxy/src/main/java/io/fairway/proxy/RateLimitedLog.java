package io.fairway.proxy;

import java.time.Duration;
import java.util.Iterator;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;

/**
 * Warnings that can repeat thousands of times a second (a backend outage under load, a flood of bad
 * requests): the first of each kind is logged, the rest are counted and summed up once per window,
 * {@code ... (and 4,711 more in the last 10 s)}. A kind is a subject (a service, a real server) and
 * a reason (a fixed phrase, or an exception's message); what varies from one occurrence to the next
 * (a client address, a URL) is the detail, shown for the logged one.
 *
 * <p>So the log grows by at most two lines per kind and window however heavy the traffic, and every
 * occurrence is still accounted for: counts left at the end of a window are written by a sweep even
 * when no further occurrence comes to carry them. Kinds are bounded ({@link #MAX_KINDS}); past
 * that, occurrences of new kinds share one summary line. Thread-safe.
 */
public final class RateLimitedLog {
  /** Distinct (subject, reason) pairs tracked at once. */
  static final int MAX_KINDS = 4096;

  private static final Kind OVERFLOW = new Kind("(other)", "further kinds of warning", false);
  private static final ScheduledExecutorService SWEEPER =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "fairway-log-summary");
            t.setDaemon(true);
            return t;
          });

  private record Kind(Object subject, String reason, boolean info) {}

  private static final class Count {
    long windowStart;
    long suppressed;
    @Nullable Object lastDetail;

    Count(long now) {
      windowStart = now;
    }
  }

  private final Logger log;
  private final long windowNanos;
  private final String windowText;
  private final LongSupplier clock;
  private final Map<Kind, Count> counts = new ConcurrentHashMap<>();

  /** Warnings to {@code log}, each kind at most once per {@code window} (plus its summary). */
  public RateLimitedLog(Logger log, Duration window) {
    this(log, window, System::nanoTime, true);
  }

  RateLimitedLog(Logger log, Duration window, LongSupplier clock, boolean sweep) {
    this.log = Objects.requireNonNull(log, "log");
    this.windowNanos = window.toNanos();
    this.windowText = format(window);
    this.clock = clock;
    if (sweep) {
      long ms = Math.max(1, window.toMillis());
      // Weakly held would be nicer; these live as long as the classes that own them (statics).
      SWEEPER.scheduleAtFixedRate(this::sweep, ms, ms, TimeUnit.MILLISECONDS);
    }
  }

  /** A warning {@code subject: reason[: detail]}, logged or counted. */
  public void warn(Object subject, String reason, @Nullable Object detail) {
    report(new Kind(subject, reason, false), detail);
  }

  /**
   * The same at INFO level: what is normal one at a time but says something when it repeats per
   * connection (a slow client cut off, a retried request while a backend dies).
   */
  public void info(Object subject, String reason, @Nullable Object detail) {
    if (log.isInfoEnabled()) {
      report(new Kind(subject, reason, true), detail);
    }
  }

  private void write(Kind k, String format, Object a, Object b) {
    if (k.info()) {
      log.info(format, a, b);
    } else {
      log.warn(format, a, b);
    }
  }

  private void report(Kind k, @Nullable Object detail) {
    long now = clock.getAsLong();
    Count c = counts.get(k);
    if (c == null) {
      if (counts.size() >= MAX_KINDS) {
        detail = line(k, detail);
        k = OVERFLOW;
      }
      Count fresh = new Count(now);
      c = counts.putIfAbsent(k, fresh);
      if (c == null) {
        write(k, "{}{}", line(k, detail), "");
        return;
      }
    }
    long suppressed;
    synchronized (c) {
      if (now - c.windowStart < windowNanos) {
        c.suppressed++;
        c.lastDetail = detail;
        return;
      }
      suppressed = c.suppressed;
      c.suppressed = 0;
      c.lastDetail = null;
      c.windowStart = now;
    }
    write(k, "{}{}", line(k, detail), suppressed == 0 ? "" : " " + more(suppressed));
  }

  /** Writes the counts of windows that ended without a further occurrence; forgets idle kinds. */
  void sweep() {
    long now = clock.getAsLong();
    for (Iterator<Map.Entry<Kind, Count>> it = counts.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<Kind, Count> e = it.next();
      Count c = e.getValue();
      long suppressed;
      @Nullable Object detail;
      synchronized (c) {
        if (now - c.windowStart < windowNanos) {
          continue;
        }
        if (c.suppressed == 0) {
          if (now - c.windowStart >= 2 * windowNanos) {
            it.remove(); // quiet for a while: its next occurrence is logged at once again
          }
          continue;
        }
        suppressed = c.suppressed;
        detail = c.lastDetail;
        c.suppressed = 0;
        c.lastDetail = null;
        c.windowStart = now;
      }
      write(
          e.getKey(),
          "{}: {}",
          line(e.getKey(), null),
          String.format(
              Locale.ROOT,
              "%,d more in the last %s%s",
              suppressed,
              windowText,
              detail == null ? "" : " (the last: " + detail + ")"));
    }
  }

  private static String line(Kind k, @Nullable Object detail) {
    return k.subject() + ": " + k.reason() + (detail == null ? "" : ": " + detail);
  }

  private String more(long n) {
    return String.format(Locale.ROOT, "(and %,d more in the last %s)", n, windowText);
  }

  private static String format(Duration d) {
    long ms = d.toMillis();
    return ms % 1000 == 0 ? ms / 1000 + " s" : ms + " ms";
  }
}
