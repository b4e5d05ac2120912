package io.fairway.check.engine;

import java.time.Duration;

/**
 * Time as the engine sees it. Injectable so that the rules that depend on time (retry spacing,
 * warmup, timeouts) are tested deterministically with {@link ManualClock} instead of sleeping.
 */
public interface EngineClock {

  /** Runs {@code task} once after {@code delay}. */
  Cancellable schedule(Runnable task, Duration delay);

  /** Monotonic time in nanoseconds. */
  long nanoTime();

  /** A scheduled task that may still be cancelled. */
  interface Cancellable {
    void cancel();
  }
}
