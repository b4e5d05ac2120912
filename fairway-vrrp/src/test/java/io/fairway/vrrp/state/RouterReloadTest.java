package io.fairway.vrrp.state;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@link Router#reconfigured}: a reload that changes an instance's settings does not flap it. */
class RouterReloadTest {
  static final long S = RouterTest.S;

  static Router.Params with(Router r, int prio, boolean preempt) {
    Router.Params p = r.params();
    return new Router.Params(
        p.name(),
        p.version(),
        prio,
        p.advertCentis(),
        preempt,
        p.preemptDelayNanos(),
        p.startAsMaster(),
        p.localAddress());
  }

  @Test
  void aChangedMasterStaysMasterAndItsBackupNeverTakesOver() {
    Lan lan = new Lan(RouterTest.MS);
    Router a = Lan.router("A", 150, 1, true, true, 0);
    Router b = Lan.router("B", 100, 2, false, true, 0);
    lan.add(a);
    lan.add(b);
    lan.runUntil(10 * S);
    long since = a.since();
    Router a2 = lan.replace(a, with(a, 140, false));
    lan.handle(a2.priority(lan.now, 140));
    lan.runUntil(30 * S);
    assertThat(a2.state()).isEqualTo(State.MASTER);
    assertThat(a2.since()).isEqualTo(since);
    assertThat(a2.effectivePriority()).isEqualTo(140);
    assertThat(b.state()).isEqualTo(State.BACKUP);
    assertThat(b.masterPriority()).isEqualTo(140);
    assertThat(lan.log).hasSize(3); // A INIT->BACKUP->MASTER, B INIT->BACKUP: nothing since
  }

  @Test
  void aChangedBackupKeepsItsElectionTimerAndItsMaster() {
    Lan lan = new Lan(RouterTest.MS);
    Router a = Lan.router("A", 150, 1, true, true, 0);
    Router b = Lan.router("B", 100, 2, false, true, 0);
    lan.add(a);
    lan.add(b);
    lan.runUntil(10 * S);
    long deadline = b.deadline();
    Router b2 = lan.replace(b, with(b, 120, true));
    assertThat(b2.state()).isEqualTo(State.BACKUP);
    assertThat(b2.deadline()).isEqualTo(deadline);
    assertThat(b2.master()).contains(Lan.ip(1));
    lan.handle(b2.priority(lan.now, 120));
    lan.runUntil(30 * S);
    assertThat(b2.state()).isEqualTo(State.BACKUP);
    // Raised above the master, it preempts: the reload took effect.
    Router b3 = lan.replace(b2, with(b2, 200, true));
    lan.handle(b3.priority(lan.now, 200));
    lan.runUntil(40 * S);
    assertThat(b3.state()).isEqualTo(State.MASTER);
    assertThat(lan.masters()).isEqualTo(1);
  }
}
