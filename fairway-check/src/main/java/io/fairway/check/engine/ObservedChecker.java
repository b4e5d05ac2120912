package io.fairway.check.engine;

import io.fairway.check.checker.CheckResult;
import io.fairway.check.checker.Checker;
import io.fairway.check.spec.CheckSpec;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Consumer;

/** A checker whose attempts are timed and reported to a {@link CheckObserver}; otherwise unchanged. */
final class ObservedChecker implements Checker {
  private final Checker inner;
  private final String vs;
  private final String rs;
  private final CheckSpec spec;
  private final CheckObserver observer;

  ObservedChecker(Checker inner, String vs, String rs, CheckSpec spec, CheckObserver observer) {
    this.inner = inner;
    this.vs = vs;
    this.rs = rs;
    this.spec = spec;
    this.observer = observer;
  }

  @Override
  public void check(Consumer<CheckResult> done) {
    inner.check(timed(done));
  }

  @Override
  public void check(int part, Consumer<CheckResult> done) {
    inner.check(part, timed(done));
  }

  private Consumer<CheckResult> timed(Consumer<CheckResult> done) {
    long start = System.nanoTime();
    return r -> {
      try {
        observer.observed(vs, rs, spec, r.success(), System.nanoTime() - start);
      } catch (RuntimeException e) {
        // metrics must never change a verdict
      }
      done.accept(r);
    };
  }

  @Override
  public Duration deadline() {
    return inner.deadline();
  }

  @Override
  public ScheduledExecutorService eventLoop() {
    return inner.eventLoop();
  }

  @Override
  public Optional<CheckResult> initial() {
    return inner.initial();
  }

  @Override
  public void close() {
    inner.close();
  }
}
