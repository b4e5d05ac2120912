package io.fairway.table;

import java.time.Duration;
import java.util.Objects;

/**
 * A slow start handed to a table whose scheduler ramps by itself ({@link RampTarget}): the
 * destination is {@code elapsed} into a ramp of {@code duration} at the moment of the call, and
 * takes that fraction of its share, growing until {@code duration}. Relative, not a timestamp, so
 * the table times the rest of the ramp by its own clock.
 *
 * @param elapsed how far into the ramp the destination is now, {@code >= 0}
 * @param duration the ramp's length ({@code slow_start}); zero for "no ramp"
 */
public record Ramp(Duration elapsed, Duration duration) {

  /** No ramp: the destination takes its full share. */
  public static final Ramp NONE = new Ramp(Duration.ZERO, Duration.ZERO);

  public Ramp {
    Objects.requireNonNull(elapsed, "elapsed");
    Objects.requireNonNull(duration, "duration");
    if (elapsed.isNegative() || duration.isNegative()) {
      throw new IllegalArgumentException(
          "a ramp's times must be >= 0: " + elapsed + " of " + duration);
    }
  }

  /** Whether the destination is still ramping: {@code elapsed < duration}. */
  public boolean active() {
    return elapsed.compareTo(duration) < 0;
  }
}
