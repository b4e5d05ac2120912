package io.fairway.check.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.check.checker.CheckResult;
import io.fairway.check.engine.CheckObserver.Outcome;
import io.fairway.check.spec.RealServerSpec;
import io.fairway.check.spec.TcpCheckSpec;
import io.fairway.check.spec.VirtualServerSpec;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * The engine tells its observer (the metrics) of every attempt exactly once: answered attempts with
 * their outcome, and an attempt abandoned at its deadline as a timeout with the deadline's
 * duration, on the manual clock so the durations are exact.
 */
class CheckObserverTest extends ScriptedEngineFixture {
  record Seen(String vs, String rs, Outcome outcome, long nanos) {}

  final List<Seen> seen = new ArrayList<>();

  void startObserved(String... servers) {
    List<RealServerSpec> rs = new ArrayList<>();
    for (String s : servers) {
      rs.add(
          RealServerSpec.of(
              s, 1, new TcpCheckSpec(InetSocketAddress.createUnresolved(s, 80), T.withRetry(0))));
    }
    engine =
        CheckEngine.builder()
            .listener(rec)
            .scheduler(clock)
            .checkerFactory(checkers)
            .random(new Random(1))
            .observer((vs, r, spec, outcome, nanos) -> seen.add(new Seen(vs, r, outcome, nanos)))
            .build();
    engine.start(List.of(VirtualServerSpec.of("vs", rs, 1, 0)));
  }

  @Test
  void answeredAttemptsAreReportedWithTheirOutcome() {
    checkers.set("b", false);
    startObserved("a", "b");
    clock.advance(Duration.ofSeconds(1));
    assertThat(seen)
        .containsExactlyInAnyOrder(
            new Seen("vs", "a", Outcome.SUCCESS, 0), new Seen("vs", "b", Outcome.FAILURE, 0));
  }

  @Test
  void anAttemptAbandonedAtItsDeadlineIsOneTimeoutOfTheDeadlinesDuration() {
    checkers.answer.put("a", ScriptedCheckers.NEVER);
    startObserved("a");
    clock.advance(Duration.ofSeconds(1));
    assertThat(seen).as("nothing before the deadline").isEmpty();
    clock.advance(Duration.ofSeconds(2)); // the scripted checker's deadline: connect_timeout 2 s
    assertThat(seen)
        .containsExactly(new Seen("vs", "a", Outcome.TIMEOUT, Duration.ofSeconds(2).toNanos()));
    checkers.set("a", true);
    clock.advance(LOOP);
    assertThat(seen).hasSize(2).last().isEqualTo(new Seen("vs", "a", Outcome.SUCCESS, 0));
  }

  @Test
  void aLateAnswerAfterTheDeadlineIsNotReportedAgain() {
    List<Consumer<CheckResult>> callbacks = new ArrayList<>();
    engine =
        CheckEngine.builder()
            .listener(rec)
            .scheduler(clock)
            .random(new Random(1))
            .checkerFactory(
                (vs, rs, spec) ->
                    new io.fairway.check.checker.Checker() {
                      @Override
                      public void check(Consumer<CheckResult> done) {
                        callbacks.add(done);
                      }

                      @Override
                      public Duration deadline() {
                        return Duration.ofSeconds(2);
                      }
                    })
            .observer((vs, r, spec, outcome, nanos) -> seen.add(new Seen(vs, r, outcome, nanos)))
            .build();
    engine.start(
        List.of(
            VirtualServerSpec.of(
                "vs",
                List.of(
                    RealServerSpec.of(
                        "a",
                        1,
                        new TcpCheckSpec(
                            InetSocketAddress.createUnresolved("a", 80), T.withRetry(0)))),
                1,
                0)));
    clock.advance(Duration.ofSeconds(3));
    assertThat(seen)
        .containsExactly(new Seen("vs", "a", Outcome.TIMEOUT, Duration.ofSeconds(2).toNanos()));
    callbacks
        .get(0)
        .accept(CheckResult.ok("late")); // the abandoned attempt's answer, after the fact
    assertThat(seen).hasSize(1);
  }

  @Test
  void boundObserversGetWhatTheCheckerSawAndBothObserversAreTold() {
    List<String> texts = new ArrayList<>();
    CheckObserver withText =
        new CheckObserver() {
          @Override
          public void observed(
              String vs, String rs, io.fairway.check.spec.CheckSpec spec, Outcome o, long n) {
            throw new AssertionError("the engine uses the bound observer");
          }

          @Override
          public Bound bind(String vs, String rs, io.fairway.check.spec.CheckSpec spec) {
            return new Bound() {
              @Override
              public void observed(Outcome outcome, long nanos) {
                throw new AssertionError("the engine passes the observation");
              }

              @Override
              public void observed(Outcome outcome, long nanos, String observation) {
                texts.add(rs + " " + outcome + " " + observation);
              }
            };
          }
        };
    checkers.set("b", false);
    List<RealServerSpec> rs = new ArrayList<>();
    for (String s : new String[] {"a", "b"}) {
      rs.add(
          RealServerSpec.of(
              s, 1, new TcpCheckSpec(InetSocketAddress.createUnresolved(s, 80), T.withRetry(0))));
    }
    engine =
        CheckEngine.builder()
            .listener(rec)
            .scheduler(clock)
            .checkerFactory(checkers)
            .random(new Random(1))
            .observer((vs, r, spec, outcome, nanos) -> seen.add(new Seen(vs, r, outcome, nanos)))
            .alsoObserver(withText)
            .build();
    engine.start(List.of(VirtualServerSpec.of("vs", rs, 1, 0)));
    clock.advance(Duration.ofSeconds(1));
    assertThat(seen).hasSize(2);
    assertThat(texts).containsExactlyInAnyOrder("a SUCCESS ok", "b FAILURE refused");
  }
}
