package io.fairway.check.checker;

import java.time.Duration;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * One running checker. {@link #check} starts one attempt and must not block: network checkers run
 * on the event loop, scripts on a bounded pool. The engine guards every attempt with {@link
 * #deadline()}: a checker that never answers counts as failed rather than leaving its server
 * silently stuck.
 */
public interface Checker extends AutoCloseable {

  /** Starts one attempt; {@code done} is called once with the result, on any thread. */
  void check(Consumer<CheckResult> done);

  /**
   * Starts one attempt at one part of the check. keepalived's HTTP_GET/SSL_GET fetch one url per
   * run, so the engine walks the urls itself and asks for url number {@code part} (0-based, in
   * configuration order); a checker with a single probe has only part 0 and ignores the number.
   */
  default void check(int part, Consumer<CheckResult> done) {
    check(done);
  }

  /** How long an attempt may take before the engine declares it failed. */
  Duration deadline();

  /**
   * The event loop this checker's I/O runs on, if any. The engine schedules the checker's timers on
   * the same loop, so an attempt, its callbacks and its next run never hop between threads.
   */
  default java.util.concurrent.@Nullable ScheduledExecutorService eventLoop() {
    return null;
  }

  /**
   * A result known before the first scheduled attempt, or empty. A track file is read at load, as
   * keepalived does, so a server an operator put into maintenance is not added to the table for the
   * first second after a restart.
   */
  default java.util.Optional<CheckResult> initial() {
    return java.util.Optional.empty();
  }

  /** Releases resources held between attempts. */
  @Override
  default void close() {}
}
