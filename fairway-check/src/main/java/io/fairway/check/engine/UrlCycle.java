package io.fairway.check.engine;

import io.fairway.check.engine.CheckerState.Step;
import io.fairway.check.engine.CheckerState.Verdict;
import java.time.Duration;

/**
 * HTTP_GET/SSL_GET's walk over its urls: keepalived's {@code epilog}/{@code timeout_epilog} of
 * check_http.c, rule for rule. One url is fetched per run; a url that passes moves the cursor on
 * and the next url is fetched a {@code delay_loop} later. The checker's verdict only changes at the
 * ends of the walk:
 *
 * <ul>
 *   <li>the last url passes with no url known to be failing: the cycle is complete and a down
 *       checker comes up (or, with the {@code rise} extension, counts one more passing cycle);
 *   <li>a url fails: it is fetched again after {@code delay_before_retry}, and once the
 *       <em>same</em> url has failed {@code retry + 1} times in a row an up checker goes down. A
 *       url that passes restarts the count, so retries are counted per url;
 *   <li>once a url is known to be failing, it alone is re-polled every max({@code
 *       delay_before_retry}, {@code delay_loop}); when it passes, every url is checked again from
 *       the first, so a server that was down needs a complete clean cycle (even with a single url:
 *       the failed url's pass, then one more) to come back.
 * </ul>
 *
 * With {@code fast_recovery}, the walk does not wait between urls while the checker has not run
 * yet, or is down with no url known to be failing: a recovering server is back after one quick pass
 * over its urls instead of one url per {@code delay_loop}.
 *
 * <p>The operator wants what keepalived does: with n urls a healthy server sees one request per
 * loop, not n, and the timing of failures and recoveries is the one they tuned their delay_loop
 * for. Not thread safe; guarded by the owning virtual server, like {@link CheckerState}.
 */
final class UrlCycle {
  private final int urls;
  private final boolean fastRecovery;

  /** The url fetched next (keepalived's {@code url_it}). */
  private int cursor;

  /** The url known to be failing, or -1 (keepalived's {@code failed_url}). */
  private int failed = -1;

  UrlCycle(int urls, boolean fastRecovery) {
    if (urls < 1) {
      throw new IllegalArgumentException("a url cycle needs at least one url, got " + urls);
    }
    this.urls = urls;
    this.fastRecovery = fastRecovery;
  }

  /** The url to fetch next. */
  int cursor() {
    return cursor;
  }

  /** The url known to be failing, or -1. */
  int failed() {
    return failed;
  }

  /** Applies one url's result to the checker's counters and proposes a transition. */
  Step step(
      CheckerState c,
      boolean success,
      int retry,
      int rise,
      Duration delayLoop,
      Duration delayBeforeRetry) {
    boolean first = !c.hasRun;
    Verdict verdict;
    Duration delay;
    if (success) {
      verdict = passed(c, retry, rise);
      delay = delayAfterPass(c, verdict, delayLoop, delayBeforeRetry);
    } else {
      verdict = failedOnce(c, retry);
      // A down checker's failure changes nothing but the delay.
      delay = failed >= 0 ? max(delayBeforeRetry, delayLoop) : delayBeforeRetry;
    }
    boolean upAfter = verdict == Verdict.UP || (c.up && verdict != Verdict.DOWN);
    if (fastRecovery && (!c.hasRun || (!upAfter && failed < 0))) {
      delay = Duration.ZERO;
    }
    // keepalived only announces a first run when a complete walk reports the state
    // (update_svr_checker_state); a first failure goes through timeout_epilog, which has already
    // marked the checker as run.
    boolean firstRun = first && c.hasRun && success;
    return new Step(verdict, delay, firstRun, cursor);
  }

  private Verdict passed(CheckerState c, int retry, int rise) {
    Verdict verdict = Verdict.STAY;
    cursor++;
    c.retryIt = 0;
    if (cursor == urls && failed < 0) {
      // Every url passed in one walk.
      cursor = 0;
      if (!c.up) {
        c.riseCount++;
        if (c.riseCount >= rise) {
          c.riseCount = 0;
          verdict = Verdict.UP;
        }
      }
      c.hasRun = true;
    } else if (failed >= 0) {
      // The failing url passes: check them all again from the first.
      failed = -1;
      cursor = 0;
    }
    if (!c.hasRun) {
      // keepalived pre-sets the count while the first walk is under way: the first failure is
      // final.
      c.retryIt = retry;
    }
    return verdict;
  }

  private Duration delayAfterPass(
      CheckerState c, Verdict verdict, Duration delayLoop, Duration delayBeforeRetry) {
    if (verdict == Verdict.STAY && !c.up && c.riseCount > 0 && cursor == 0) {
      // The rise extension: the next passing cycle of a down checker starts at the retry pace,
      // as the next success of a single-probe checker does.
      return delayBeforeRetry;
    }
    return delayLoop;
  }

  private Verdict failedOnce(CheckerState c, int retry) {
    c.riseCount = 0;
    if (c.up || !c.hasRun) {
      c.hasRun = true;
      c.retryIt++;
      if (c.retryIt > retry) {
        failed = cursor;
        if (c.up) {
          return Verdict.DOWN;
        }
      }
    }
    return Verdict.STAY;
  }

  private static Duration max(Duration a, Duration b) {
    return a.compareTo(b) >= 0 ? a : b;
  }
}
