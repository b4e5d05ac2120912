package io.fairway.vrrp.state;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.vrrp.packet.Advert;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class SyncGroupStateTest {
  static final long S = 1_000_000_000L;

  static Advert advert(int prio) {
    return new Advert(2, 1, prio, 100, List.of(), Optional.empty());
  }

  @Test
  void membersBecomeMasterTogetherOnlyWhenAllWantTo() {
    Router a = Lan.router("A", 100, 1, false, true, 0);
    Router b = Lan.router("B", 100, 1, false, true, 0);
    SyncGroupState g = new SyncGroupState("G", List.of(a, b));
    a.start(0);
    b.start(0);
    // B still hears its master: A's timer running out must not make A master alone.
    b.advert(3 * S, advert(150), Lan.ip(9));
    List<Action> out = a.timer(a.deadline());
    assertThat(out).isEmpty();
    assertThat(a.state()).isEqualTo(State.BACKUP);
    // B's master goes silent too: the group moves, both in one step.
    out = b.timer(b.deadline());
    assertThat(out).filteredOn(x -> x instanceof Action.Transition).hasSize(2);
    assertThat(a.state()).isEqualTo(State.MASTER);
    assertThat(b.state()).isEqualTo(State.MASTER);
    assertThat(g.state()).isEqualTo(State.MASTER);
  }

  @Test
  void oneBackupTakesTheOthersAlong() {
    Router a = Lan.router("A", 255, 1, true, true, 0);
    Router b = Lan.router("B", 255, 1, true, true, 0);
    new SyncGroupState("G", List.of(a, b));
    a.start(0);
    b.start(0);
    assertThat(b.state()).isEqualTo(State.MASTER);
    Router c = Lan.router("C", 150, 1, true, true, 0);
    c.start(0);
    // A higher priority (from a higher address, equal 255) on A's link: A and B both go.
    List<Action> out = a.advert(S, advert(255), Lan.ip(200));
    assertThat(out)
        .contains(
            new Action.Transition(a, State.MASTER, State.BACKUP),
            new Action.Transition(b, State.MASTER, State.BACKUP));
  }

  @Test
  void oneFaultPutsTheGroupInFaultUntilItRecovers() {
    Router a = Lan.router("A", 100, 1, false, true, 0);
    Router b = Lan.router("B", 100, 1, false, true, 0);
    SyncGroupState g = new SyncGroupState("G", List.of(a, b));
    a.start(0);
    b.start(0);
    a.fault(S, true);
    assertThat(b.state()).isEqualTo(State.FAULT);
    assertThat(g.state()).isEqualTo(State.FAULT);
    b.fault(2 * S, true);
    a.fault(3 * S, false);
    assertThat(a.state()).as("B is still faulty").isEqualTo(State.FAULT);
    b.fault(4 * S, false);
    assertThat(a.state()).isEqualTo(State.BACKUP);
    assertThat(b.state()).isEqualTo(State.BACKUP);
  }
}
