package io.fairway.daemon;

import io.fairway.apply.Applier;
import io.fairway.apply.OverflowWatch;
import io.fairway.table.TableException;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The daemon's periodic work on one thread: drift repair, the overflow watch, only while a ramp
 * runs the slow start step, and the release of verdicts held to be published together. All
 * serialise on the applier anyway.
 *
 * <p>Every task holds the applier it was started with and never the daemon's lock: {@link
 * Daemon#stop} holds that lock while it waits for the timers ({@link #stop}).
 */
final class DaemonTimers {
  private static final Logger LOG = LoggerFactory.getLogger(DaemonTimers.class);

  /** How often the slow start step runs while a ramp does. */
  private static final long SLOW_START_STEP_MS = 50;

  private final Applier applier;
  private final ScheduledExecutorService timers =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "fairway-timers");
            t.setDaemon(true);
            return t;
          });

  /** Whether the slow start step is scheduled (it reschedules itself while ramps run). */
  private final AtomicBoolean slowStartTicking = new AtomicBoolean();

  /** Whether the last overflow reading failed: a failure is logged once. */
  private boolean overflowFailing;

  DaemonTimers(Applier applier) {
    this.applier = applier;
  }

  /** Runs a task on the timer thread after a delay; throws once the timers are stopped. */
  void later(Duration delay, Runnable task) {
    timers.schedule(task, delay.toNanos(), TimeUnit.NANOSECONDS);
  }

  /** Runs a task every {@code interval} (millisecond grain), the first after one interval. */
  void every(Duration interval, Runnable task) {
    long ms = interval.toMillis();
    timers.scheduleWithFixedDelay(task, ms, ms, TimeUnit.MILLISECONDS);
  }

  /** The slow start step from now on whenever a ramp runs, starting with any running now. */
  void stepWhileRamping() {
    applier.onRampStart(this::startSlowStartTick);
    if (applier.rampsActive()) {
      startSlowStartTick();
    }
  }

  /**
   * Reads the table's counters for {@code overflow_to_sorry_server} every {@code interval}
   * (microsecond grain, at least one).
   */
  void watchOverflow(Duration interval) {
    OverflowWatch watch = new OverflowWatch(applier);
    long us = Math.max(1, interval.toNanos() / 1000);
    timers.scheduleWithFixedDelay(() -> watchOverflow(watch), us, us, TimeUnit.MICROSECONDS);
  }

  /** Whether the slow start step is scheduled now (it is only while a ramp runs). */
  boolean slowStartTicking() {
    return slowStartTicking.get();
  }

  /**
   * Stops drift repair, the overflow watch and the slow start step, and waits for one in progress,
   * so shutdown's removals come last.
   */
  void stop() {
    timers.shutdownNow();
    try {
      timers.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Schedules the slow start step unless it is: called under the applier's lock, never blocks. */
  private void startSlowStartTick() {
    if (slowStartTicking.compareAndSet(false, true)) {
      scheduleSlowStartTick();
    }
  }

  private void scheduleSlowStartTick() {
    try {
      timers.schedule(this::stepSlowStarts, SLOW_START_STEP_MS, TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException stopping) {
      slowStartTicking.set(false);
    }
  }

  /** One slow start step; the next one while a ramp runs, then none until the next ramp. */
  private void stepSlowStarts() {
    try {
      applier.stepSlowStarts();
    } catch (TableException | RuntimeException e) {
      // The next step retries; drift repair converges what was missed.
      LOG.debug("slow start: {}", e.getMessage());
    }
    if (applier.rampsActive()) {
      scheduleSlowStartTick();
      return;
    }
    slowStartTicking.set(false);
    // A ramp that started between the check and the reset found the step still scheduled.
    if (applier.rampsActive() && slowStartTicking.compareAndSet(false, true)) {
      scheduleSlowStartTick();
    }
  }

  /** One overflow reading; a failure is logged once until the table answers again. */
  private void watchOverflow(OverflowWatch watch) {
    try {
      watch.poll();
      if (overflowFailing) {
        LOG.info("overflow watch: reading the table again");
      }
      overflowFailing = false;
    } catch (TableException | RuntimeException e) {
      if (!overflowFailing) {
        LOG.warn(
            "overflow watch: cannot read the table, sorry servers stay as they are: {}",
            e.getMessage());
      }
      overflowFailing = true;
    }
  }
}
