package io.fairway.apply;

import java.time.Duration;

/**
 * Runs a task once, after a delay: how the daemon's timer thread is lent to the applier (tests run
 * the tasks by hand). Called under the applier's lock, so it must not block; a timer that is
 * shutting down may throw, and the applier then does the task's work at once.
 */
@FunctionalInterface
public interface Later {
  void after(Duration delay, Runnable task);
}
