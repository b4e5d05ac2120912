package io.fairway.check.engine;

import io.fairway.check.spec.CheckSpec;
import io.fairway.check.spec.CheckTiming;
import io.fairway.check.spec.FileCheckSpec;
import io.fairway.check.spec.HttpCheckSpec;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * One checker's up/down state and retry counters: keepalived's {@code tcp_epilog} plus the {@code
 * rise} extension, or, for HTTP_GET/SSL_GET, keepalived's url walk ({@link UrlCycle}). Not thread
 * safe; guarded by the owning virtual server.
 *
 * <p>{@link #step} only <em>proposes</em> a transition; {@link #commit} applies it once the real
 * server's state change was accepted, so a refused transition is proposed again on the next result.
 */
final class CheckerState {

  /** What a result means for the checker. */
  enum Verdict {
    STAY,
    UP,
    DOWN
  }

  /**
   * A proposed transition and when to check next.
   *
   * @param verdict the transition proposed, {@link Verdict#STAY} when this result settles nothing
   *     yet (a url that passed in the middle of an HTTP_GET's walk)
   * @param next when to run the next attempt
   * @param firstRun whether this result is the checker's first verdict since start
   * @param part which part of the check the next attempt runs (an HTTP_GET's url; 0 for other
   *     checkers)
   */
  record Step(Verdict verdict, Duration next, boolean firstRun, int part) {
    Step(Verdict verdict, Duration next, boolean firstRun) {
      this(verdict, next, firstRun, 0);
    }
  }

  final CheckSpec spec;
  final String name;
  private final int retry;
  private final int rise;
  private final Duration delayLoop;
  private final Duration delayBeforeRetry;
  final boolean alpha;

  /**
   * keepalived's log_all_failures: every failed attempt while up is logged, not only the
   * transition.
   */
  final boolean logAllFailures;

  /** HTTP_GET/SSL_GET's walk over its urls, or {@code null} for a checker with a single probe. */
  private final @Nullable UrlCycle urls;

  boolean up;
  boolean hasRun;
  int retryIt;
  int riseCount;
  long weightDelta;

  CheckerState(CheckSpec spec) {
    this.spec = spec;
    this.name = spec.describe();
    CheckTiming t = spec.timing();
    // A track file is an operator's switch, not a probe: no retries, no damping, no alpha.
    boolean file = spec instanceof FileCheckSpec;
    this.retry = file ? 0 : t.retry();
    this.rise = file ? 1 : t.rise();
    this.alpha = !file && t.alpha();
    this.logAllFailures = !file && t.logAllFailures();
    this.delayLoop = file ? min(t.delayLoop(), Duration.ofSeconds(1)) : t.delayLoop();
    this.delayBeforeRetry = t.delayBeforeRetry();
    this.urls =
        spec instanceof HttpCheckSpec h ? new UrlCycle(h.urls().size(), h.fastRecovery()) : null;
    this.up = !alpha;
    // keepalived pre-sets the retry counter, so the first failure after start is final.
    this.retryIt = retry;
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }

  /** Which part of the check runs next (an HTTP_GET's url number; 0 for other checkers). */
  int part() {
    return urls == null ? 0 : urls.cursor();
  }

  /** The url an HTTP_GET knows to be failing, or -1. */
  int failedPart() {
    return urls == null ? -1 : urls.failed();
  }

  /** Failed attempts a down transition takes ({@code retry + 1}). */
  int attempts() {
    return retry + 1;
  }

  Step step(boolean success) {
    if (urls != null) {
      return urls.step(this, success, retry, rise, delayLoop, delayBeforeRetry);
    }
    boolean first = !hasRun;
    hasRun = true;
    if (success) {
      retryIt = 0;
      if (up) {
        riseCount = 0;
        return new Step(Verdict.STAY, delayLoop, first);
      }
      riseCount++;
      if (riseCount >= rise) {
        riseCount = 0;
        return new Step(Verdict.UP, delayLoop, first);
      }
      return new Step(Verdict.STAY, delayBeforeRetry, first);
    }
    riseCount = 0;
    if (up || first) {
      if (retryIt >= retry) {
        retryIt = 0;
        return new Step(up ? Verdict.DOWN : Verdict.STAY, delayLoop, first);
      }
      retryIt++;
      return new Step(Verdict.STAY, delayBeforeRetry, first);
    }
    return new Step(Verdict.STAY, delayLoop, first);
  }

  /** The state at load, from a result known before any attempt (a track file). */
  void preset(io.fairway.check.checker.CheckResult r) {
    up = r.success();
    hasRun = true;
    retryIt = 0;
    weightDelta = r.weightDelta().orElse(0);
  }

  void commit(Verdict v) {
    if (v == Verdict.UP) {
      up = true;
    } else if (v == Verdict.DOWN) {
      up = false;
    }
  }

  /** The transition was refused by the listener: make the next result propose it again at once. */
  void refused(Verdict v) {
    if (v == Verdict.DOWN) {
      retryIt = retry;
    } else if (v == Verdict.UP) {
      riseCount = rise - 1;
    }
  }
}
