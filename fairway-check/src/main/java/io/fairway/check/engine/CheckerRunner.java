package io.fairway.check.engine;

import io.fairway.check.checker.CheckResult;
import io.fairway.check.checker.Checker;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Drives one checker through time: first run at 1 s + random(0..warmup), then at whatever interval the state
 * machine asks for. Each attempt is guarded by the checker's deadline, and a checker that throws counts as a
 * failed attempt: a broken checker shows up as a dead server with a reason, never as a silently stuck one.
 */
final class CheckerRunner {
    private static final Logger log = LoggerFactory.getLogger(CheckerRunner.class);
    /** keepalived's BOOTSTRAP_DELAY before the first check. */
    static final Duration BOOTSTRAP = Duration.ofSeconds(1);

    private final VirtualServerState vs;
    private final RealServerState rs;
    private final CheckerState state;
    private final Checker checker;
    private final Scheduler scheduler;
    private volatile boolean closed;
    private volatile Scheduler.Cancellable next;

    CheckerRunner(VirtualServerState vs, RealServerState rs, CheckerState state, Checker checker,
                  Scheduler scheduler) {
        this.vs = vs;
        this.rs = rs;
        this.state = state;
        this.checker = checker;
        this.scheduler = scheduler;
    }

    void start(Duration firstDelay) {
        next = scheduler.schedule(this::attempt, firstDelay);
    }

    private void attempt() {
        if (closed) {
            return;
        }
        AtomicBoolean done = new AtomicBoolean();
        Duration deadline = checker.deadline();
        Scheduler.Cancellable guard = scheduler.schedule(
                () -> finish(done, CheckResult.fail("no result within " + deadline.toMillis() + " ms")), deadline);
        try {
            checker.check(r -> {
                guard.cancel();
                finish(done, r);
            });
        } catch (RuntimeException e) {
            guard.cancel();
            log.warn("{} {}: {} threw: {}", vs.spec.name(), rs.spec.name(), state.name, e.toString());
            finish(done, CheckResult.fail("checker error: " + e.getMessage()));
        }
    }

    private void finish(AtomicBoolean done, CheckResult r) {
        if (!done.compareAndSet(false, true) || closed) {
            return;
        }
        Duration delay;
        try {
            delay = vs.onResult(rs, state, r);
        } catch (RuntimeException e) {
            log.error("{} {}: {}: result handling failed: {}", vs.spec.name(), rs.spec.name(), state.name,
                    e.toString());
            delay = state.spec.timing().delayLoop();
        }
        if (!closed) {
            next = scheduler.schedule(this::attempt, delay);
        }
    }

    void close() {
        closed = true;
        Scheduler.Cancellable n = next;
        if (n != null) {
            n.cancel();
        }
        checker.close();
    }
}
