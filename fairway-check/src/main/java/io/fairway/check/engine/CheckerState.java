package io.fairway.check.engine;

import io.fairway.check.spec.CheckSpec;
import io.fairway.check.spec.CheckTiming;
import io.fairway.check.spec.FileCheckSpec;

import java.time.Duration;

/**
 * One checker's up/down state and retry counters: keepalived's {@code tcp_epilog} plus the {@code rise}
 * extension. Not thread safe; guarded by the owning virtual server.
 *
 * <p>{@link #step} only <em>proposes</em> a transition; {@link #commit} applies it once the real server's state
 * change was accepted, so a refused transition is proposed again on the next result.
 */
final class CheckerState {

    /** What a result means for the checker. */
    enum Verdict { STAY, UP, DOWN }

    /** A proposed transition and when to check next. */
    record Step(Verdict verdict, Duration next, boolean firstRun) {
    }

    final CheckSpec spec;
    final String name;
    private final int retry;
    private final int rise;
    private final Duration delayLoop;
    private final Duration delayBeforeRetry;
    final boolean alpha;

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
        this.delayLoop = file ? min(t.delayLoop(), Duration.ofSeconds(1)) : t.delayLoop();
        this.delayBeforeRetry = t.delayBeforeRetry();
        this.up = !alpha;
        // keepalived pre-sets the retry counter, so the first failure after start is final.
        this.retryIt = retry;
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    Step step(boolean success) {
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
