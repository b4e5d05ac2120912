package io.fairway.apply;

import static io.fairway.apply.Fixtures.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.table.Dest;
import io.fairway.table.TableOp;
import io.fairway.testkit.RecordingTable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * slow_start on a table of weights: the ramp's steps, and the applier stepping a server that comes
 * up after start from 1 to its weight in a bounded number of set calls, on a clock the test moves.
 */
class SlowStartStepsTest {
  final RecordingTable table = new RecordingTable();
  final AtomicLong clock = new AtomicLong(1_000_000_000L);

  static ServerBinding slow(String name, String addr, int weight, int seconds) {
    return new ServerBinding(
        name, Dest.of(ip(addr), 80, weight), false, weight, Duration.ofSeconds(seconds));
  }

  void advance(double seconds) {
    clock.addAndGet((long) (seconds * 1e9));
  }

  Applier applier(ServerBinding... servers) {
    return new Applier(table, config(web(servers)), clock::get);
  }

  @Test
  void theRampStepsFromLowToTheTargetInAtMostTenSteps() {
    long d = Duration.ofSeconds(10).toNanos();
    List<Integer> w = new ArrayList<>();
    for (int t = 0; t <= 10; t++) {
      w.add(SlowStartSteps.weight(100, t * d / 10, d));
    }
    assertThat(w).containsExactly(10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 100);
    assertThat(SlowStartSteps.weight(3, 0, d)).isEqualTo(1);
    assertThat(SlowStartSteps.weight(3, d / 2, d)).isEqualTo(2);
    assertThat(SlowStartSteps.weight(3, d - 1, d)).isEqualTo(3);
    assertThat(SlowStartSteps.weight(1, 0, d)).as("nothing to ramp").isEqualTo(1);
    assertThat(SlowStartSteps.weight(0, 0, d)).as("quiesced stays quiesced").isZero();
    assertThat(SlowStartSteps.weight(7, 0, 0)).as("no slow start").isEqualTo(7);
    // Huge durations and weights do not overflow.
    long year = Duration.ofDays(365).toNanos();
    assertThat(SlowStartSteps.weight(Integer.MAX_VALUE, year / 2, year))
        .isBetween(1, Integer.MAX_VALUE);
  }

  @Test
  void aServerThatComesUpLaterIsSteppedUpOverItsSlowStart() throws Exception {
    Applier a = applier(rs("a", "10.16.1.1", 10), slow("b", "10.16.1.2", 10, 10));
    a.init("web", up("a"));
    table.drain();

    a.setAlive("web", "b", true);
    assertThat(table.drain()).containsExactly(add("10.16.1.2", 1));
    assertThat(a.rampWeight("web", "b")).isEqualTo(1);
    assertThat(a.status().get(0).servers().get(1).rampWeight()).isEqualTo(1);

    List<Integer> seen = new ArrayList<>();
    int calls = 0;
    for (int i = 0; i < 200; i++) { // 20 s in 100 ms steps
      advance(0.1);
      calls += a.stepSlowStarts();
      seen.add(table.weight(WEB, key("10.16.1.2")));
    }
    assertThat(calls).as("bounded: one call per step after the install").isEqualTo(9);
    assertThat(seen).isSorted();
    assertThat(seen.get(seen.size() - 1)).isEqualTo(10);
    // Halfway through the ramp it is at half its weight (steps start at 0, 1, ..., 9 s).
    assertThat(seen.get(49)).isEqualTo(6); // t = 5.0 s: step 6 of 10
    assertThat(a.rampWeight("web", "b")).isNull();
    assertThat(a.status().get(0).servers().get(1).ramping()).isFalse();
    assertThat(a.repairDrift()).isEmpty();
  }

  @Test
  void aStatusReadAfterTheRampsTimeDoesNotSkipItsLastStep() throws Exception {
    Applier a = applier(rs("a", "10.16.1.1", 10), slow("b", "10.16.1.2", 10, 10));
    a.init("web", up("a"));
    a.setAlive("web", "b", true);
    advance(11);
    assertThat(a.status().get(0).servers().get(1).rampWeight()).isEqualTo(10);
    assertThat(a.rampWeight("web", "b")).isEqualTo(10);
    assertThat(table.weight(WEB, key("10.16.1.2"))).as("not written yet").isEqualTo(1);
    assertThat(a.stepSlowStarts()).isEqualTo(1);
    assertThat(table.weight(WEB, key("10.16.1.2"))).isEqualTo(10);
    assertThat(a.rampWeight("web", "b")).isNull();
    assertThat(a.repairDrift()).isEmpty();
  }

  @Test
  void notAtStartWhereEveryServerWouldBeNew() throws Exception {
    Applier a = applier(slow("a", "10.16.1.1", 10, 10), slow("b", "10.16.1.2", 10, 10));
    a.init("web", up("a", "b"));
    assertThat(table.drain()).contains(add("10.16.1.1", 10), add("10.16.1.2", 10));
    assertThat(a.stepSlowStarts()).isZero();
    assertThat(a.rampWeight("web", "a")).isNull();
  }

  @Test
  void drainedAndBackRampsAgainAndAWeightChangeMidRampFollowsTheRamp() throws Exception {
    Applier a = applier(rs("a", "10.16.1.1", 10), slow("b", "10.16.1.2", 20, 10));
    a.init("web", up("a", "b"));
    a.setAlive("web", "b", false);
    table.drain();
    a.setAlive("web", "b", true);
    assertThat(table.drain()).containsExactly(add("10.16.1.2", 2));
    advance(5);
    a.stepSlowStarts();
    assertThat(table.weight(WEB, key("10.16.1.2"))).isEqualTo(12);
    // track_file halves the target mid-ramp: the ramp goes on towards the new target.
    a.setWeight("web", "b", 10);
    assertThat(table.drain()).endsWith(set("10.16.1.2", 6));
    advance(6);
    a.stepSlowStarts();
    assertThat(table.weight(WEB, key("10.16.1.2"))).isEqualTo(10);
  }

  @Test
  void theAdminReadyHookRestartsTheRamp() throws Exception {
    Applier a = applier(rs("a", "10.16.1.1", 10), slow("b", "10.16.1.2", 10, 10));
    a.init("web", up("a", "b"));
    table.drain();
    assertThat(a.startSlowStart("web", "b")).isTrue();
    assertThat(table.drain()).containsExactly(set("10.16.1.2", 1));
    assertThat(a.startSlowStart("web", "a")).as("no slow_start configured").isFalse();
  }

  @Test
  void aServerAddedByAReloadRampsWhenItsFirstVerdictBringsItIn() throws Exception {
    Applier a = applier(rs("a", "10.16.1.1", 10));
    a.init("web", up("a"));
    a.replace(Map.of("web", web(rs("a", "10.16.1.1", 10), slow("b", "10.16.1.2", 10, 10))));
    table.drain();
    a.setAlive("web", "b", true);
    assertThat(table.drain()).containsExactly(add("10.16.1.2", 1));
    // A reload during the ramp keeps it.
    advance(3);
    a.replace(Map.of("web", web(rs("a", "10.16.1.1", 10), slow("b", "10.16.1.2", 10, 10))));
    assertThat(a.rampWeight("web", "b")).isEqualTo(4);
  }

  @Test
  void aServerRestoredWhenQuorumReturnsIsNotRamped() throws Exception {
    ServiceBinding vs = web(slow("a", "10.16.1.1", 10, 10)).withSorryServer(SORRY, false);
    Applier a = new Applier(table, config(vs), clock::get);
    a.init("web", up("a"));
    a.setAlive("web", "a", false);
    a.quorum("web", false);
    a.setAlive("web", "a", true);
    table.drain();
    a.quorum("web", true);
    assertThat(table.drain()).contains(new TableOp.AddDest(WEB, Dest.of(ip("10.16.1.1"), 80, 10)));
  }
}
