package io.fairway.check.engine;

import io.fairway.check.checker.CheckResult;
import io.fairway.check.checker.Checker;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Drives one checker through time: first run at 1 s + random(0..warmup), then at whatever interval
 * the state machine asks for. Each attempt is guarded by the checker's deadline, and a checker that
 * throws counts as a failed attempt: a broken checker shows up as a dead server with a reason,
 * never as a silently stuck one.
 */
final class CheckerRunner {
  private static final Logger log = LoggerFactory.getLogger(CheckerRunner.class);

  /** keepalived's BOOTSTRAP_DELAY before the first check. */
  static final Duration BOOTSTRAP = Duration.ofSeconds(1);

  private final VirtualServerState vs;
  private final RealServerState rs;
  private final CheckerState state;
  private final Checker checker;
  private final EngineClock scheduler;

  /** Told of each attempt's outcome; null = nobody. */
  private final CheckObserver.@Nullable Bound observer;

  private volatile boolean closed;
  private volatile EngineClock.@Nullable Cancellable next;

  /**
   * The part of the check the next attempt runs (an HTTP_GET's url), as the last result decided.
   */
  private volatile int part;

  CheckerRunner(
      VirtualServerState vs,
      RealServerState rs,
      CheckerState state,
      Checker checker,
      EngineClock scheduler,
      @Nullable CheckObserver observer) {
    this.vs = vs;
    this.rs = rs;
    this.state = state;
    this.checker = checker;
    this.scheduler = scheduler;
    this.observer =
        observer == null ? null : observer.bind(vs.spec.name(), rs.spec.name(), state.spec);
  }

  void start(Duration firstDelay) {
    next = scheduler.schedule(this::attempt, firstDelay);
  }

  private void attempt() {
    if (closed) {
      return;
    }
    Attempt a = new Attempt();
    try {
      checker.check(part, a);
    } catch (RuntimeException e) {
      log.warn("{} {}: {} threw: {}", vs.spec.name(), rs.spec.name(), state.name, e.toString());
      a.complete(
          CheckResult.fail("checker error: " + e.getMessage()), CheckObserver.Outcome.FAILURE);
      return;
    }
    // A checker that answered while check() ran (a refused or completed loopback connect) needs no
    // guard:
    // not scheduling one saves a timer insert and cancel per check.
    if (!a.get()) {
      a.guard(scheduler.schedule(a, checker.deadline()));
    }
  }

  /**
   * One attempt: the result callback and the deadline guard in one object. Whichever comes first
   * wins; the other is ignored. The winner is what the observer is told, so an abandoned attempt is
   * counted once, as a timeout.
   */
  private final class Attempt extends AtomicBoolean implements Consumer<CheckResult>, Runnable {
    private final long start = scheduler.nanoTime();
    private volatile EngineClock.@Nullable Cancellable guard;

    void guard(EngineClock.Cancellable g) {
      guard = g;
      if (get()) { // the result came in while the guard was being scheduled
        g.cancel();
      }
    }

    @Override
    public void accept(CheckResult r) {
      complete(r, r.success() ? CheckObserver.Outcome.SUCCESS : CheckObserver.Outcome.FAILURE);
    }

    /** The deadline passed without a result. */
    @Override
    public void run() {
      complete(
          CheckResult.fail("no result within " + checker.deadline().toMillis() + " ms"),
          CheckObserver.Outcome.TIMEOUT);
    }

    void complete(CheckResult r, CheckObserver.Outcome outcome) {
      if (!compareAndSet(false, true)) {
        return;
      }
      EngineClock.Cancellable g = guard;
      if (g != null) {
        g.cancel();
      }
      observe(outcome, scheduler.nanoTime() - start, r.observation());
      finish(r);
    }
  }

  private void observe(CheckObserver.Outcome outcome, long nanos, String observation) {
    if (observer == null) {
      return;
    }
    try {
      observer.observed(outcome, nanos, observation);
    } catch (RuntimeException e) {
      // metrics must never change a verdict
      log.debug("check observer: {}", e.toString());
    }
  }

  private void finish(CheckResult r) {
    if (closed) {
      return;
    }
    Duration delay;
    try {
      CheckerState.Step step = vs.onResult(rs, state, r);
      delay = step.next();
      part = step.part();
    } catch (RuntimeException e) {
      log.error(
          "{} {}: {}: result handling failed: {}",
          vs.spec.name(),
          rs.spec.name(),
          state.name,
          e.toString());
      delay = state.spec.timing().delayLoop();
    }
    if (!closed) {
      next = scheduler.schedule(this::attempt, delay);
    }
  }

  void close() {
    closed = true;
    EngineClock.Cancellable n = next;
    if (n != null) {
      n.cancel();
    }
    checker.close();
  }
}
