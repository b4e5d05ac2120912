package io.fairway.check.spec;

import java.time.Duration;
import java.util.Objects;

/**
 * When a checker runs and how many results it takes to change its mind.
 *
 * <p>keepalived's rule, kept exactly: one success brings a down checker up; {@code retry + 1}
 * consecutive failures, spaced by {@code delayBeforeRetry}, bring an up checker down; the very
 * first failure after start is final (keepalived pre-sets its retry counter), so a server that is
 * dead at start is not kept in the pool for {@code retry × delay_before_retry}. While down, a
 * checker keeps running every {@code delayLoop}.
 *
 * <p>Extension (HAProxy's {@code rise}/{@code fall}): {@code rise > 1} asks for that many
 * consecutive successes, spaced by {@code delayBeforeRetry}, before a down checker comes back,
 * which damps a flapping backend. {@code fall N} is the same as {@code retry N-1}; see {@link
 * #withFall(int)}.
 *
 * @param delayLoop interval between checks in steady state
 * @param connectTimeout how long a single attempt may take
 * @param retry extra consecutive failures tolerated before an up checker goes down
 * @param delayBeforeRetry interval between the attempts of a retry or rise sequence
 * @param warmup the first check runs at 1 s + random(0..warmup), spreading many checkers over the
 *     loop
 * @param alpha start down: the server is not used until this checker has passed once
 * @param rise consecutive successes needed to bring a down checker up (keepalived: 1)
 * @param logAllFailures log every failed attempt while the checker is up, not only the transition
 *     to down (keepalived's {@code log_all_failures} / {@code checker_log_all_failures})
 */
public record CheckTiming(
    Duration delayLoop,
    Duration connectTimeout,
    int retry,
    Duration delayBeforeRetry,
    Duration warmup,
    boolean alpha,
    int rise,
    boolean logAllFailures) {

  /** Timing that logs only state changes (keepalived's default). */
  public CheckTiming(
      Duration delayLoop,
      Duration connectTimeout,
      int retry,
      Duration delayBeforeRetry,
      Duration warmup,
      boolean alpha,
      int rise) {
    this(delayLoop, connectTimeout, retry, delayBeforeRetry, warmup, alpha, rise, false);
  }

  /**
   * keepalived's defaults for TCP_CHECK: delay_loop 60 s, connect_timeout 5 s, retry 1,
   * delay_before_retry 1 s.
   */
  public static final CheckTiming DEFAULT =
      new CheckTiming(
          Duration.ofSeconds(60),
          Duration.ofSeconds(5),
          1,
          Duration.ofSeconds(1),
          Duration.ofSeconds(60),
          false,
          1);

  public CheckTiming {
    Objects.requireNonNull(delayLoop, "delayLoop");
    Objects.requireNonNull(connectTimeout, "connectTimeout");
    Objects.requireNonNull(delayBeforeRetry, "delayBeforeRetry");
    Objects.requireNonNull(warmup, "warmup");
    if (delayLoop.isNegative() || delayLoop.isZero()) {
      throw new IllegalArgumentException("delay_loop must be positive, got " + delayLoop);
    }
    if (connectTimeout.isNegative() || connectTimeout.isZero()) {
      throw new IllegalArgumentException("connect_timeout must be positive, got " + connectTimeout);
    }
    if (retry < 0) {
      throw new IllegalArgumentException("retry must be >= 0, got " + retry);
    }
    if (delayBeforeRetry.isNegative() || warmup.isNegative()) {
      throw new IllegalArgumentException("delay_before_retry and warmup must not be negative");
    }
    if (rise < 1) {
      throw new IllegalArgumentException("rise must be >= 1, got " + rise);
    }
  }

  /**
   * Uniform timing for tests and simple configs: warmup = delay loop, keepalived's other defaults.
   */
  public static CheckTiming of(Duration delayLoop, Duration connectTimeout) {
    return new CheckTiming(
        delayLoop, connectTimeout, 1, Duration.ofSeconds(1), delayLoop, false, 1);
  }

  public CheckTiming withRetry(int newRetry) {
    return new CheckTiming(
        delayLoop, connectTimeout, newRetry, delayBeforeRetry, warmup, alpha, rise, logAllFailures);
  }

  /**
   * HAProxy's {@code fall N}: N consecutive failures bring the checker down, i.e. {@code retry
   * N-1}.
   */
  public CheckTiming withFall(int fall) {
    if (fall < 1) {
      throw new IllegalArgumentException("fall must be >= 1, got " + fall);
    }
    return withRetry(fall - 1);
  }

  public CheckTiming withRise(int newRise) {
    return new CheckTiming(
        delayLoop, connectTimeout, retry, delayBeforeRetry, warmup, alpha, newRise, logAllFailures);
  }

  public CheckTiming withAlpha(boolean newAlpha) {
    return new CheckTiming(
        delayLoop, connectTimeout, retry, delayBeforeRetry, warmup, newAlpha, rise, logAllFailures);
  }

  public CheckTiming withDelayBeforeRetry(Duration d) {
    return new CheckTiming(
        delayLoop, connectTimeout, retry, d, warmup, alpha, rise, logAllFailures);
  }

  public CheckTiming withLogAllFailures(boolean on) {
    return new CheckTiming(
        delayLoop, connectTimeout, retry, delayBeforeRetry, warmup, alpha, rise, on);
  }

  public CheckTiming withWarmup(Duration d) {
    return new CheckTiming(
        delayLoop, connectTimeout, retry, delayBeforeRetry, d, alpha, rise, logAllFailures);
  }
}
