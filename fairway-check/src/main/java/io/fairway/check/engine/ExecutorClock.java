package io.fairway.check.engine;

import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Real time, on a {@link ScheduledExecutorService} such as a Netty event loop group.
 *
 * <p>Deadlines are rounded up to a {@link #TICK} boundary. With 10,000 checkers spread over a
 * one-second loop, exact deadlines would wake the event loop 10,000 times a second; on 10 ms ticks
 * it wakes at most 100 times and runs about a hundred checks per wake-up. A verdict is at most one
 * tick later, which no operator can notice.
 */
public final class ExecutorClock implements EngineClock {
  /** Granularity of deadlines. */
  public static final long TICK_NANOS = 10_000_000L;

  /** Granularity of deadlines, as a duration. */
  public static final Duration TICK = Duration.ofNanos(TICK_NANOS);

  private final ScheduledExecutorService executor;

  public ExecutorClock(ScheduledExecutorService executor) {
    this.executor = executor;
  }

  @Override
  public Cancellable schedule(Runnable task, Duration delay) {
    long now = System.nanoTime();
    long at = now + Math.max(0, delay.toNanos());
    long aligned = Math.floorDiv(at + TICK_NANOS - 1, TICK_NANOS) * TICK_NANOS;
    var f = executor.schedule(task, aligned - now, TimeUnit.NANOSECONDS);
    return () -> f.cancel(false);
  }

  @Override
  public long nanoTime() {
    return System.nanoTime();
  }
}
