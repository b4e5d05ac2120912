package io.fairway.check.engine;

import io.fairway.check.ServerStateChanged;
import io.fairway.check.VerdictListener;
import io.fairway.check.spec.CheckTiming;
import io.fairway.check.spec.VirtualServerSpec;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;

/**
 * What the engine's rule tests run on: a manual clock, so that every statement about time is exact;
 * checker answers scripted by real server name; a recorder of the events with the time each
 * arrived; and the engine under test, closed after each test.
 */
abstract class ScriptedEngineFixture {
  static final Duration LOOP = Duration.ofSeconds(10);
  static final Duration DBR = Duration.ofSeconds(1);

  /**
   * delay_loop 10 s, connect_timeout 2 s, retry 1, delay_before_retry 1 s, no warmup, not alpha,
   * rise 1.
   */
  static final CheckTiming T =
      new CheckTiming(LOOP, Duration.ofSeconds(2), 1, DBR, Duration.ZERO, false, 1);

  final ManualClock clock = new ManualClock();
  final ScriptedCheckers checkers = new ScriptedCheckers(clock);
  final Recorder rec = new Recorder(clock);
  @Nullable CheckEngine engine;

  @AfterEach
  void closeEngine() {
    if (engine != null) {
      engine.close();
    }
  }

  /**
   * An engine on the fixture's clock and checkers, reporting to {@code listener}; its randomness is
   * seeded.
   */
  CheckEngine newEngine(VerdictListener listener) {
    return CheckEngine.builder()
        .listener(listener)
        .scheduler(clock)
        .checkerFactory(checkers)
        .random(new Random(1))
        .build();
  }

  /** Starts the engine under test on {@code vs}, reporting to {@link #rec}. */
  void start(VirtualServerSpec... vs) {
    engine = newEngine(rec);
    engine.start(List.of(vs));
  }

  /** The engine {@link #start} started. */
  CheckEngine engine() {
    return Objects.requireNonNull(engine, "start() was called");
  }

  /** The server state changes recorded so far. */
  List<ServerStateChanged> states() {
    return rec.of(ServerStateChanged.class);
  }
}
