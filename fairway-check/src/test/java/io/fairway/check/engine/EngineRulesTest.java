package io.fairway.check.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.check.QuorumChanged;
import io.fairway.check.ServerStateChanged;
import io.fairway.check.VerdictSnapshot;
import io.fairway.check.WeightChanged;
import io.fairway.check.checker.CheckResult;
import io.fairway.check.spec.CheckSpec;
import io.fairway.check.spec.CheckTiming;
import io.fairway.check.spec.RealServerSpec;
import io.fairway.check.spec.TcpCheckSpec;
import io.fairway.check.spec.VirtualServerSpec;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * keepalived's rules, one test each, driven by a manual clock and scripted checker answers so that
 * every statement about time is exact.
 */
class EngineRulesTest extends ScriptedEngineFixture {

  static CheckSpec tcp(CheckTiming t) {
    return new TcpCheckSpec(InetSocketAddress.createUnresolved("rs", 80), t);
  }

  static RealServerSpec rs(String name, int weight, CheckTiming t) {
    return RealServerSpec.of(name, weight, tcp(t));
  }

  void startOne(RealServerSpec... servers) {
    start(VirtualServerSpec.of("vs", List.of(servers), 1, 0));
  }

  long secs(double s) {
    return (long) (s * 1e9);
  }

  @Test
  void nonAlphaServersStartAliveAndTheFirstFailureIsFinal() {
    checkers.set("a", false);
    startOne(rs("a", 1, T.withRetry(3)));
    assertThat(rec.initial)
        .singleElement()
        .satisfies(
            s -> {
              assertThat(s.servers().get(0).alive()).isTrue();
              assertThat(s.quorumUp()).isTrue();
            });
    clock.advance(Duration.ofSeconds(1)); // first check at bootstrap 1 s (warmup 0)
    assertThat(states())
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.alive()).isFalse();
              assertThat(e.reason().observation()).isEqualTo("refused");
              assertThat(e.reason().checker()).isEqualTo("TCP_CHECK rs:80");
            });
    assertThat(rec.at(ServerStateChanged.class).get(0).nanos()).isEqualTo(secs(1));
  }

  @Test
  void anUpCheckerGoesDownAfterRetryPlusOneFailuresSpacedByDelayBeforeRetry() {
    startOne(rs("a", 1, T.withRetry(2)));
    clock.advance(Duration.ofSeconds(1)); // first run succeeds at t=1
    checkers.set("a", false);
    clock.advance(LOOP); // t=11 failure 1, t=12 failure 2
    clock.advance(DBR);
    assertThat(states()).isEmpty();
    clock.advance(DBR); // t=13 failure 3 = retry + 1
    assertThat(states()).singleElement().extracting(ServerStateChanged::alive).isEqualTo(false);
    assertThat(rec.at(ServerStateChanged.class).get(0).nanos()).isEqualTo(secs(13));
    assertThat(checkers.ranAt.get("a")).containsExactly(secs(1), secs(11), secs(12), secs(13));
    clock.advance(LOOP); // while down, checks continue every delay_loop
    assertThat(checkers.ranAt.get("a")).endsWith(secs(23));
  }

  @Test
  void aSuccessBetweenFailuresResetsTheRetryCount() {
    startOne(rs("a", 1, T.withRetry(1)));
    clock.advance(Duration.ofSeconds(1));
    checkers.set("a", false);
    clock.advance(LOOP); // t=11 failure 1 of 2
    checkers.set("a", true);
    clock.advance(DBR); // t=12 success
    checkers.set("a", false);
    clock.advance(LOOP); // t=22 failure 1 of 2 again
    assertThat(states()).isEmpty();
    clock.advance(DBR); // t=23 failure 2
    assertThat(states()).singleElement().extracting(ServerStateChanged::alive).isEqualTo(false);
  }

  @Test
  void oneSuccessBringsADownCheckerBack() {
    checkers.set("a", false);
    startOne(rs("a", 1, T));
    clock.advance(Duration.ofSeconds(1));
    checkers.set("a", true);
    clock.advance(LOOP);
    assertThat(states()).extracting(ServerStateChanged::alive).containsExactly(false, true);
    assertThat(rec.at(ServerStateChanged.class).get(1).nanos()).isEqualTo(secs(11));
  }

  @Test
  void riseAsksForConsecutiveSuccessesAndFallIsRetryPlusOne() {
    checkers.set("a", false);
    startOne(rs("a", 1, T.withRise(3).withFall(2)));
    clock.advance(Duration.ofSeconds(1)); // down at t=1 (first failure is final)
    checkers.set("a", true);
    clock.advance(LOOP); // t=11 success 1
    clock.advance(DBR); // t=12 success 2
    assertThat(states()).hasSize(1);
    checkers.set("a", false);
    clock.advance(DBR); // t=13 failure resets the rise count
    checkers.set("a", true);
    clock.advance(LOOP); // t=23, 24, 25
    clock.advance(DBR);
    assertThat(states()).hasSize(1);
    clock.advance(DBR);
    assertThat(states()).extracting(ServerStateChanged::alive).containsExactly(false, true);
    assertThat(rec.at(ServerStateChanged.class).get(1).nanos()).isEqualTo(secs(25));
    checkers.set("a", false);
    clock.advance(LOOP); // t=35 failure 1 of fall 2
    assertThat(states()).hasSize(2);
    clock.advance(DBR); // t=36 failure 2
    assertThat(states()).extracting(ServerStateChanged::alive).containsExactly(false, true, false);
  }

  @Test
  void alphaServersStartDeadUntilEveryCheckerPassedOnce() {
    CheckTiming alpha = T.withAlpha(true);
    RealServerSpec two =
        new RealServerSpec("a", 1, List.of(tcp(alpha), tcp(alpha.withWarmup(LOOP))), null, null);
    checkers.set("a#0", true);
    checkers.set("a#1", true);
    startOne(two);
    assertThat(rec.initial.get(0).servers().get(0).alive()).isFalse();
    assertThat(rec.initial.get(0).quorumUp()).isFalse();
    clock.advance(
        Duration.ofSeconds(1)); // checker 0 passed, checker 1 has not run yet (warmup spread)
    if (checkers.ranAt.get("a#1") == null) {
      assertThat(states()).isEmpty();
    }
    clock.advance(LOOP.plusSeconds(1));
    assertThat(states()).singleElement().extracting(ServerStateChanged::alive).isEqualTo(true);
    assertThat(rec.of(QuorumChanged.class))
        .singleElement()
        .extracting(QuorumChanged::up)
        .isEqualTo(true);
  }

  @Test
  void alphaServerWhoseFirstCheckFailsStaysDeadWithoutEvents() {
    checkers.set("a", false);
    startOne(rs("a", 1, T.withAlpha(true)));
    clock.advance(Duration.ofSeconds(30));
    assertThat(rec.events).isEmpty();
    assertThat(engine().status().get(0).servers().get(0).alive()).isFalse();
  }

  @Test
  void severalCheckersCombineWithAnd() {
    RealServerSpec two =
        new RealServerSpec("a", 1, List.of(tcp(T.withRetry(0)), tcp(T.withRetry(0))), null, null);
    startOne(two);
    clock.advance(Duration.ofSeconds(1));
    checkers.set("a#0", false);
    clock.advance(LOOP); // checker 0 down -> server dead
    checkers.set("a#1", false);
    clock.advance(LOOP); // checker 1 down too -> no new event
    checkers.set("a#0", true);
    clock.advance(LOOP); // checker 0 back, 1 still down -> still dead
    assertThat(states()).extracting(ServerStateChanged::alive).containsExactly(false);
    checkers.set("a#1", true);
    clock.advance(LOOP); // last failing checker recovers -> alive
    assertThat(states()).extracting(ServerStateChanged::alive).containsExactly(false, true);
    assertThat(states().get(1).reason().checker()).isEqualTo("TCP_CHECK rs:80");
  }

  @Test
  void quorumHysteresisEdges() {
    // quorum 3, hysteresis 1: gain at sum >= 4, lose at sum < 2 (or 0).
    List<RealServerSpec> servers = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      servers.add(rs("r" + i, 1, T.withRetry(0)));
    }
    start(VirtualServerSpec.of("vs", servers, 3, 1));
    assertThat(rec.initial.get(0).quorumUp()).isTrue();
    clock.advance(Duration.ofSeconds(1));
    for (int i = 0; i < 3; i++) {
      checkers.set("r" + i, false); // sum 5 -> 2 (= quorum - hysteresis): still up
    }
    clock.advance(LOOP);
    assertThat(rec.of(QuorumChanged.class)).isEmpty();
    checkers.set("r3", false); // sum 1 < 2: lost
    clock.advance(LOOP);
    assertThat(rec.of(QuorumChanged.class))
        .singleElement()
        .satisfies(
            q -> {
              assertThat(q.up()).isFalse();
              assertThat(q.weightSum()).isEqualTo(1);
              assertThat(q.threshold()).isEqualTo(2);
              assertThat(q.reason().checker()).isEqualTo("TCP_CHECK rs:80");
            });
    checkers.set("r0", true);
    checkers.set("r1", true); // sum 3 = quorum but < quorum + hysteresis: still down
    clock.advance(LOOP);
    assertThat(rec.of(QuorumChanged.class)).hasSize(1);
    checkers.set("r2", true); // sum 4: gained
    clock.advance(LOOP);
    assertThat(rec.of(QuorumChanged.class))
        .extracting(QuorumChanged::up)
        .containsExactly(false, true);
    assertThat(rec.of(QuorumChanged.class).get(1).threshold()).isEqualTo(4);
  }

  @Test
  void quorumIsLostWhenTheSumFallsToZeroEvenIfTheThresholdIsZero() {
    // quorum 1, hysteresis 0 with a weight-0 server: sum 0 is "lost" although 0 >= 1 - 0 is false
    // anyway;
    // the explicit ws == 0 rule matters for quorum 1, hysteresis... capped at 0; test the plain
    // edge.
    start(
        VirtualServerSpec.of(
            "vs", List.of(rs("a", 1, T.withRetry(0)), rs("b", 1, T.withRetry(0))), 1, 0));
    clock.advance(Duration.ofSeconds(1));
    checkers.set("a", false);
    clock.advance(LOOP);
    assertThat(rec.of(QuorumChanged.class)).isEmpty(); // sum 1 >= 1
    checkers.set("b", false);
    clock.advance(LOOP);
    assertThat(rec.of(QuorumChanged.class))
        .singleElement()
        .satisfies(
            q -> {
              assertThat(q.up()).isFalse();
              assertThat(q.weightSum()).isZero();
            });
  }

  @Test
  void startingBelowQuorumReportsQuorumDownAndGainsItLater() {
    CheckTiming alpha = T.withAlpha(true);
    checkers.set("a", false);
    start(VirtualServerSpec.of("vs", List.of(rs("a", 2, alpha)), 2, 0));
    VerdictSnapshot s = rec.initial.get(0);
    assertThat(s.quorumUp()).isFalse();
    assertThat(s.weightSum()).isZero();
    clock.advance(Duration.ofSeconds(1));
    checkers.set("a", true);
    clock.advance(LOOP);
    assertThat(rec.of(QuorumChanged.class))
        .singleElement()
        .satisfies(
            q -> {
              assertThat(q.up()).isTrue();
              assertThat(q.weightSum()).isEqualTo(2);
            });
  }

  @Test
  void dynamicWeightIsConfiguredWeightPlusDeltasAndIsClamped() {
    RealServerSpec two = new RealServerSpec("a", 10, List.of(tcp(T), tcp(T)), null, null);
    startOne(two);
    checkers.set("a#0", CheckResult.ok("exit 7").withWeightDelta(-3));
    clock.advance(Duration.ofSeconds(1));
    checkers.set(
        "a#1", CheckResult.ok("value -1").withWeightDelta(-20)); // 10 - 3 - 20 < 0 -> clamped to 0
    clock.advance(LOOP);
    checkers.set(
        "a#1", CheckResult.ok("huge").withWeightDelta(Integer.MAX_VALUE)); // clamped to 2^31-1
    clock.advance(LOOP);
    assertThat(rec.of(WeightChanged.class))
        .extracting(WeightChanged::weight)
        .containsExactly(7, 0, Integer.MAX_VALUE);
    assertThat(rec.of(WeightChanged.class).get(1).previousWeight()).isEqualTo(7);
    assertThat(rec.of(WeightChanged.class).get(1).reason().observation()).isEqualTo("value -1");
    // weight 0 while alive contributes 0 to quorum: it was lost at the clamp and regained after.
    assertThat(rec.of(QuorumChanged.class))
        .extracting(QuorumChanged::up)
        .containsExactly(false, true);
    assertThat(engine().status().get(0).servers().get(0).weight()).isEqualTo(Integer.MAX_VALUE);
  }

  @Test
  void aReloadKeepsTheDynamicWeightOfAnUnchangedCheckerButNotOfAChangedOne() {
    RealServerSpec a = new RealServerSpec("a", 10, List.of(tcp(T)), null, null);
    RealServerSpec b = new RealServerSpec("b", 10, List.of(tcp(T)), null, null);
    startOne(a, b);
    checkers.set("a", CheckResult.ok("exit 5").withWeightDelta(-7));
    checkers.set("b", CheckResult.ok("exit 5").withWeightDelta(-7));
    clock.advance(Duration.ofSeconds(1));
    assertThat(engine().status().get(0).servers())
        .extracting(s -> s.weight())
        .containsExactly(3, 3);

    CheckEngine previous = engine();
    previous.close();
    Recorder after = new Recorder(clock);
    engine = newEngine(after);
    // a's checker checks the same thing (only its timing changed); b's checks another port.
    RealServerSpec a2 =
        new RealServerSpec("a", 10, List.of(tcp(T.withAlpha(true).withRetry(4))), null, null);
    RealServerSpec b2 =
        new RealServerSpec(
            "b",
            10,
            List.of(new TcpCheckSpec(InetSocketAddress.createUnresolved("rs", 81), T)),
            null,
            null);
    engine.start(List.of(VirtualServerSpec.of("vs", List.of(a2, b2), 1, 0)), previous);
    assertThat(after.initial)
        .singleElement()
        .satisfies(s -> assertThat(s.servers()).extracting(r -> r.weight()).containsExactly(3, 10));
  }

  @Test
  void aWeightChangeThatClampsToTheSameValueIsNotAnEvent() {
    RealServerSpec one = new RealServerSpec("a", 1, List.of(tcp(T)), null, null);
    startOne(one);
    checkers.set("a", CheckResult.ok("x").withWeightDelta(-5));
    clock.advance(Duration.ofSeconds(1));
    checkers.set("a", CheckResult.ok("y").withWeightDelta(-9));
    clock.advance(LOOP);
    assertThat(rec.of(WeightChanged.class))
        .singleElement()
        .extracting(WeightChanged::weight)
        .isEqualTo(0);
  }

  @Test
  void aCheckerThatNeverAnswersFailsAtItsDeadline() {
    checkers.answer.put("a", ScriptedCheckers.NEVER);
    startOne(rs("a", 1, T.withRetry(0)));
    clock.advance(Duration.ofSeconds(1));
    assertThat(states()).isEmpty();
    clock.advance(Duration.ofSeconds(2)); // connect_timeout deadline of the scripted checker
    assertThat(states())
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.alive()).isFalse();
              assertThat(e.reason().observation()).isEqualTo("no result within 2000 ms");
            });
    assertThat(rec.at(ServerStateChanged.class).get(0).nanos()).isEqualTo(secs(3));
    clock.advance(LOOP); // and it keeps being checked
    assertThat(checkers.ranAt.get("a")).hasSize(2);
  }

  @Test
  void aRefusedTransitionIsNotCommittedAndIsRetriedOnTheNextResult() {
    checkers.set("a", false);
    rec.refuse = e -> true;
    startOne(rs("a", 1, T.withRetry(2)));
    clock.advance(Duration.ofSeconds(1));
    assertThat(engine().status().get(0).servers().get(0).alive()).isTrue();
    rec.refuse = e -> false;
    clock.advance(LOOP); // next failure proposes DOWN again at once (no new retry sequence)
    assertThat(states()).singleElement().extracting(ServerStateChanged::alive).isEqualTo(false);
    assertThat(rec.at(ServerStateChanged.class).get(0).nanos()).isEqualTo(secs(11));
  }

  @Test
  void firstChecksAreSpreadOverWarmup() {
    List<RealServerSpec> servers = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      servers.add(rs("r" + i, 1, T.withWarmup(LOOP)));
    }
    startOne(servers.toArray(RealServerSpec[]::new));
    clock.advance(Duration.ofSeconds(11));
    List<Long> firsts = checkers.ranAt.values().stream().map(l -> l.get(0)).toList();
    assertThat(firsts).hasSize(200).allSatisfy(t -> assertThat(t).isBetween(secs(1), secs(11)));
    long inFirstHalf = firsts.stream().filter(t -> t < secs(6)).count();
    assertThat(inFirstHalf).isBetween(60L, 140L); // roughly uniform, not all at once
  }

  @Test
  void aServerWithoutCheckersIsAliveForEver() {
    start(
        VirtualServerSpec.of(
            "vs", List.of(new RealServerSpec("a", 3, List.of(), null, null)), 1, 0));
    clock.advance(Duration.ofSeconds(100));
    assertThat(rec.initial.get(0).servers().get(0).alive()).isTrue();
    assertThat(rec.initial.get(0).weightSum()).isEqualTo(3);
    assertThat(rec.events).isEmpty();
  }
}
