package io.fairway.proxy.table;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The learned limit's rules ({@link LearnedLimit}): none until a refusal, 9/10 of what was in
 * flight then, one decrease per window, additive growth while it is in use, forgotten after a quiet
 * minute; and what the table does with it: every scheduler and director keeps to it, {@code
 * max_conns} overrides it, a server back from weight 0 starts without one.
 */
class LearnedLimitTest {
  private static final long SECOND = 1_000_000_000L;

  @Test
  void noLimitUntilTheFirstRefusalThenNineTenthsOfWhatWasInFlight() {
    LearnedLimit l = new LearnedLimit();
    assertThat(l.served(500, 0)).isFalse();
    assertThat(l.limit()).isZero();
    assertThat(l.refused(l.epoch(), 300, SECOND)).isTrue();
    assertThat(l.limit()).isEqualTo(270);
  }

  @Test
  void refusalsOfConnectionsAdmittedBeforeTheDecreaseAreNotCountedAgain() {
    LearnedLimit l = new LearnedLimit();
    int before = l.epoch();
    l.refused(before, 100, SECOND);
    for (int i = 0; i < 50; i++) {
      assertThat(l.refused(before, 100, SECOND)).isFalse();
    }
    assertThat(l.limit()).isEqualTo(90);
    assertThat(l.refusals()).isEqualTo(51);
    // One admitted after it is news: the next decrease, from the lower of the limit and in flight.
    assertThat(l.refused(l.epoch(), 40, SECOND)).isTrue();
    assertThat(l.limit()).isEqualTo(36);
  }

  @Test
  void repeatedWindowsOfRefusalsStopAtTheFloor() {
    LearnedLimit l = new LearnedLimit();
    for (int i = 0; i < 100; i++) {
      l.refused(l.epoch(), 1, SECOND);
    }
    assertThat(l.limit()).isEqualTo(LearnedLimit.FLOOR);
  }

  @Test
  void growsByAboutOnePerLimitsWorthOfAnswersWhileAtLeastHalfUsed() {
    LearnedLimit l = new LearnedLimit();
    l.refused(l.epoch(), 100, SECOND); // 90
    for (int i = 0; i < 200; i++) {
      l.served(10, SECOND); // a fifth used: no evidence it could take more
    }
    assertThat(l.limit()).isEqualTo(90);
    int answers = 0;
    while (l.limit() < 92) {
      l.served(60, SECOND);
      answers++;
    }
    assertThat(answers).isBetween(90 + 90, 92 + 92);
  }

  @Test
  void growthSlowsWithinOneOfWhereItLastRefused() {
    LearnedLimit l = new LearnedLimit();
    l.refused(l.epoch(), 100, SECOND); // 90, refused at 100
    while (l.limit() < 99) {
      l.served(99, SECOND);
    }
    int answers = 0;
    while (l.limit() < 100) {
      l.served(99, SECOND);
      answers++;
    }
    assertThat(answers).as("answers from 99 to 100").isGreaterThan(5 * 99);
    while (l.limit() < 101) {
      l.served(99, SECOND);
    }
    answers = 0;
    while (l.limit() < 102) {
      l.served(99, SECOND);
      answers++;
    }
    assertThat(answers).as("answers from 101 to 102, past it").isLessThan(2 * 101);
  }

  @Test
  void aMinuteWithoutRefusalWhileInUseForgetsTheLimit() {
    LearnedLimit l = new LearnedLimit();
    l.refused(l.epoch(), 100, SECOND);
    l.served(90, SECOND + LearnedLimit.FORGET_NANOS);
    assertThat(l.limit()).isEqualTo(90);
    assertThat(l.served(90, 2 * SECOND + LearnedLimit.FORGET_NANOS)).isTrue();
    assertThat(l.limit()).isZero();
    // And the next refusal teaches a fresh one at once.
    l.refused(l.epoch(), 20, 3 * SECOND + LearnedLimit.FORGET_NANOS);
    assertThat(l.limit()).isEqualTo(18);
  }

  /** Picks from a service of two servers until nobody takes more (at most 200 tries). */
  private static List<Lease> fill(ProxyService vs) {
    List<Lease> leases = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      Lease l = MaxConnsTest.pick(vs, i);
      if (l != null) {
        leases.add(l);
      }
    }
    return leases;
  }

  private static List<Lease> on(List<Lease> leases, int port) {
    return leases.stream().filter(l -> l.server.address.getPort() == port).toList();
  }

  @ParameterizedTest
  @ValueSource(strings = {"rr", "wlc", "mh", "round_robin", "random"})
  void everySchedulerKeepsToTheLearnedLimitAndTheOtherServerTakesTheRest(String scheduler) {
    ProxyService vs = MaxConnsTest.service(scheduler, ListenerSpec.tcp(), 9001, 9002);
    List<Lease> first = new ArrayList<>();
    for (int i = 0; i < 200 && on(first, 9001).size() < 11; i++) {
      Lease l = MaxConnsTest.pick(vs, i);
      if (l != null) {
        first.add(l);
      }
    }
    List<Lease> on9001 = on(first, 9001);
    assertThat(on9001).hasSize(11); // no limit before a refusal
    on9001.get(10).refused(); // 11 in flight: 9 from now on
    on9001.get(10).close();
    on9001.get(9).close();
    List<Lease> more = fill(vs);
    assertThat(on(more, 9001)).as("new ones on 9001 beside the 9 left").isEmpty();
    assertThat(on(more, 9002)).isNotEmpty();
    on9001.get(0).close();
    Lease next = null;
    for (int i = 0; i < 200 && next == null; i++) {
      Lease l = MaxConnsTest.pick(vs, 1000 + i);
      if (l != null && l.server.address.getPort() == 9001) {
        next = l;
      }
    }
    assertThat(next).as("9001 takes one again below its limit").isNotNull();
  }

  @Test
  void maxConnsOverridesTheLearnedLimit() {
    ProxyService vs = MaxConnsTest.service("rr", MaxConnsTest.spec(Map.of(9001, 20)), 9001);
    List<Lease> leases = fill(vs);
    assertThat(leases).hasSize(20);
    leases.get(19).refused();
    leases.get(19).close();
    assertThat(vs.all().iterator().next().learnedLimit()).as("not in force").isZero();
    assertThat(fill(vs)).hasSize(1); // max_conns 20, not 9/10 of it
  }

  @Test
  void aServerBackFromWeightZeroStartsWithoutALimit() {
    ProxyService vs = MaxConnsTest.service("wlc", ListenerSpec.tcp(), 9001);
    List<Lease> leases = fill(vs);
    assertThat(leases).hasSize(200);
    leases.get(0).refused();
    ProxyBackend rs = vs.all().iterator().next();
    assertThat(rs.learnedLimit()).isEqualTo(180);
    vs.setDest(MaxConnsTest.dest(9001, 0).withWeight(0));
    vs.setDest(MaxConnsTest.dest(9001, 0));
    assertThat(rs.learnedLimit()).isZero();
    assertThat(fill(vs)).hasSize(200);
  }
}
