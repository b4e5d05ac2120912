package io.fairway.vrrp.state;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.vrrp.packet.Advert;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class RouterTest {
  static final long S = 1_000_000_000L;
  static final long MS = 1_000_000L;

  @Test
  void timersAreKeepalivedsIntegers() {
    // v2: skew (256 - 100) / 256 s = 609375 us; master down 3 s + skew.
    assertThat(Timing.skew(2, 100, 100)).isEqualTo(609_375_000L);
    assertThat(Timing.masterDown(2, 100, 100)).isEqualTo(3_609_375_000L);
    // v3 scales the skew by the master's interval: 50 cs at priority 200 -> 56/256 * 0.5 s.
    assertThat(Timing.skew(3, 200, 50)).isEqualTo(56L * 50 * Timing.CENTI / 256);
    assertThat(Timing.masterDown(3, 254, 100)).isEqualTo(3 * S + 2 * S / 256);
  }

  @Test
  void higherPriorityBecomesMasterAndHoldsIt() {
    Lan lan = new Lan(MS);
    Router a = Lan.router("A", 150, 1, true, true, 0);
    Router b = Lan.router("B", 100, 2, false, true, 0);
    lan.add(a);
    lan.add(b);
    lan.runUntil(10 * S);
    assertThat(a.state()).isEqualTo(State.MASTER);
    assertThat(b.state()).isEqualTo(State.BACKUP);
    assertThat(b.master()).contains(Lan.ip(1));
    assertThat(b.masterPriority()).isEqualTo(150);
    // state MASTER waits one advert + minimum skew before taking over, not the whole interval.
    assertThat(lan.log).contains("1003ms A BACKUP->MASTER");
  }

  @Test
  void killedMasterIsReplacedWithinTheMasterDownInterval() {
    Lan lan = new Lan(MS);
    Router a = Lan.router("A", 150, 1, true, true, 0);
    Router b = Lan.router("B", 100, 2, false, true, 0);
    lan.add(a);
    lan.add(b);
    lan.runUntil(10 * S);
    long killed = lan.now;
    lan.kill(a);
    lan.runUntil(20 * S);
    assertThat(b.state()).isEqualTo(State.MASTER);
    long took = b.since() - killed;
    assertThat(took).isLessThanOrEqualTo(Timing.masterDown(2, 100, 100)).isGreaterThan(2 * S);
  }

  @Test
  void priorityZeroOnStopHandsOverAfterTheSkewTime() {
    Lan lan = new Lan(MS);
    Router a = Lan.router("A", 150, 1, true, true, 0);
    Router b = Lan.router("B", 100, 2, false, true, 0);
    lan.add(a);
    lan.add(b);
    lan.runUntil(10 * S + 500 * MS);
    long stopped = lan.now;
    lan.stop(a);
    assertThat(a.state()).isEqualTo(State.STOP);
    lan.runUntil(20 * S);
    assertThat(b.since() - stopped).isLessThan(S).isEqualTo(MS + Timing.skew(2, 100, 100));
  }

  @Test
  void returnPreemptsButNotWithNopreempt() {
    for (boolean preempt : new boolean[] {true, false}) {
      Lan lan = new Lan(MS);
      Router a = Lan.router("A", 150, 1, false, preempt, 0);
      Router b = Lan.router("B", 100, 2, false, true, 0);
      lan.add(b);
      lan.runUntil(10 * S);
      assertThat(b.state()).isEqualTo(State.MASTER);
      lan.add(a);
      lan.runUntil(30 * S);
      assertThat(a.state())
          .as("preempt " + preempt)
          .isEqualTo(preempt ? State.MASTER : State.BACKUP);
      assertThat(b.state()).isEqualTo(preempt ? State.BACKUP : State.MASTER);
      assertThat(lan.worstOverlap).isLessThanOrEqualTo(2 * MS);
    }
  }

  @Test
  void preemptDelayHoldsOffTheTakeover() {
    Lan lan = new Lan(MS);
    Router a = Lan.router("A", 150, 1, false, true, 20 * S);
    Router b = Lan.router("B", 100, 2, false, true, 0);
    lan.add(b);
    lan.runUntil(10 * S);
    lan.add(a);
    long added = lan.now;
    lan.runUntil(added + 19 * S);
    assertThat(a.state()).isEqualTo(State.BACKUP);
    lan.runUntil(added + 40 * S);
    assertThat(a.state()).isEqualTo(State.MASTER);
    long after = a.since() - added;
    assertThat(after)
        .isGreaterThanOrEqualTo(20 * S)
        .isLessThanOrEqualTo(20 * S + Timing.masterDown(2, 150, 100) + S);
  }

  @Test
  void equalPrioritiesBreakTiesByTheHigherAddress() {
    Lan lan = new Lan(MS);
    Router a = Lan.router("A", 100, 1, true, true, 0);
    Router b = Lan.router("B", 100, 2, true, true, 0);
    lan.add(a);
    lan.add(b);
    lan.runUntil(10 * S);
    assertThat(b.state()).isEqualTo(State.MASTER);
    assertThat(a.state()).isEqualTo(State.BACKUP);
  }

  @Test
  void ownerIsMasterAtOnce() {
    Router o = Lan.router("O", 255, 1, true, true, 0);
    List<Action> out = o.start(0);
    assertThat(out).first().isInstanceOf(Action.SendAdvert.class);
    assertThat(o.state()).isEqualTo(State.MASTER);
  }

  @Test
  void trackingLowersTheMastersPriorityAndTheBackupTakesOver() {
    Lan lan = new Lan(MS);
    Router a = Lan.router("A", 150, 1, true, true, 0);
    Router b = Lan.router("B", 100, 2, false, true, 0);
    lan.add(a);
    lan.add(b);
    lan.runUntil(10 * S);
    lan.handle(a.priority(lan.now, 150 + Priority.contribution(-60, false, false)));
    assertThat(a.effectivePriority()).isEqualTo(90);
    lan.runUntil(20 * S);
    assertThat(b.state()).isEqualTo(State.MASTER);
    assertThat(a.state()).isEqualTo(State.BACKUP);
    lan.handle(a.priority(lan.now, 150));
    lan.runUntil(30 * S);
    assertThat(a.state()).isEqualTo(State.MASTER);
  }

  @Test
  void faultLeavesMasterWithPriorityZeroAndRecoversAsBackup() {
    Router a = Lan.router("A", 255, 1, true, true, 0);
    a.start(0);
    List<Action> out = a.fault(S, true);
    assertThat(out)
        .containsExactly(
            new Action.SendAdvert(a, 0), new Action.Transition(a, State.MASTER, State.FAULT));
    assertThat(a.deadline()).isEqualTo(Long.MAX_VALUE);
    a.fault(2 * S, false);
    assertThat(a.state()).isEqualTo(State.BACKUP);
    assertThat(a.deadline()).isEqualTo(2 * S + Timing.masterDown(2, 255, 100));
  }

  @Test
  void masterAnswersALowerPriorityMasterAtOnce() {
    Router a = Lan.router("A", 255, 1, true, true, 0);
    a.start(0);
    List<Action> out =
        a.advert(S / 2, new Advert(2, 1, 100, 100, List.of(), Optional.empty()), Lan.ip(2));
    assertThat(out).containsExactly(new Action.SendAdvert(a, 255));
  }

  @Test
  void priorityArithmeticIsKeepaliveds() {
    assertThat(Priority.contribution(10, false, true)).isEqualTo(10);
    assertThat(Priority.contribution(10, false, false)).isZero();
    assertThat(Priority.contribution(-10, false, false)).isEqualTo(-10);
    assertThat(Priority.contribution(-10, false, true)).isZero();
    assertThat(Priority.contribution(10, true, true)).isEqualTo(-10);
    assertThat(Priority.contribution(-10, true, false)).isEqualTo(10);
    assertThat(Priority.faults(0, false, false)).isTrue();
    assertThat(Priority.faults(0, true, true)).isTrue();
    assertThat(Priority.faults(5, false, false)).isFalse();
    assertThat(Priority.effective(250, 20)).isEqualTo(254);
    assertThat(Priority.effective(10, -50)).isEqualTo(1);
    assertThat(Priority.effective(255, -50)).isEqualTo(255);
  }

  @Test
  void scriptRiseAndFall() {
    ScriptStatus s = new ScriptStatus(2, 3, false);
    assertThat(s.ok()).isEmpty();
    assertThat(s.record(true)).isTrue();
    assertThat(s.record(false)).isFalse();
    assertThat(s.record(false)).isFalse();
    assertThat(s.record(false)).isTrue();
    assertThat(s.ok()).contains(false);
    assertThat(s.record(true)).isFalse();
    assertThat(s.record(true)).isTrue();
    assertThat(new ScriptStatus(1, 1, true).ok()).contains(false);
  }
}
