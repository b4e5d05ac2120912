package io.fairway.apply;

import static io.fairway.apply.Fixtures.SORRY;
import static io.fairway.apply.Fixtures.WEB;
import static io.fairway.apply.Fixtures.config;
import static io.fairway.apply.Fixtures.inhibit;
import static io.fairway.apply.Fixtures.ip;
import static io.fairway.apply.Fixtures.rs;
import static io.fairway.apply.Fixtures.up;
import static io.fairway.apply.Fixtures.web;
import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.table.DestEntry;
import io.fairway.table.MemoryTable;
import io.fairway.table.ServiceEntry;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Operators' drain / maint / ready / weight over the checkers' verdicts, on an in-memory table:
 * what the table holds after each step, that verdicts keep being recorded under an admin state,
 * quorum and the sorry server following the effective table, and a reload keeping the settings.
 */
class AdminApplierTest {
  final MemoryTable table = new MemoryTable();
  final List<AdminEvent> events = new ArrayList<>();

  AdminApplier admin(Map<String, ServiceBinding> cfg, QuorumRule rule) {
    Map<String, QuorumRule> rules = new LinkedHashMap<>();
    cfg.keySet().forEach(k -> rules.put(k, rule));
    return new AdminApplier(new Applier(table, cfg), rules, events::add);
  }

  /** The weight of a destination in the table, or null when it is not there. */
  Integer weight(String addr) throws Exception {
    for (ServiceEntry e : table.list()) {
      if (e.service().key().equals(WEB)) {
        for (DestEntry d : e.dests()) {
          if (d.dest().address().equals(ip(addr))) {
            return d.dest().weight();
          }
        }
      }
    }
    return null;
  }

  @Test
  void drainKeepsTheServerAtWeightZeroAndReadyRestoresWhatTheCheckersSay() throws Exception {
    AdminApplier a =
        admin(config(web(rs("a", "10.16.1.1", 3), rs("b", "10.16.1.2", 1))), QuorumRule.DEFAULT);
    a.init("web", up("a", "b"));
    assertThat(weight("10.16.1.1")).isEqualTo(3);

    a.setState("web", "a", AdminState.DRAIN);
    assertThat(weight("10.16.1.1")).isZero();
    // A check failure under drain: a plain server leaves as for any failure; the verdict is kept.
    a.setAlive("web", "a", false);
    assertThat(weight("10.16.1.1")).isNull();
    assertThat(a.alive("web", "a")).isFalse();
    a.setAlive("web", "a", true);
    assertThat(weight("10.16.1.1")).as("back, but still drained").isZero();
    // The checkers' weight moves while drained: recorded, not applied.
    a.setWeight("web", "a", 5);
    assertThat(weight("10.16.1.1")).isZero();

    a.setState("web", "a", AdminState.NONE);
    assertThat(weight("10.16.1.1")).isEqualTo(5);
    assertThat(events).extracting(AdminEvent::kind).containsOnly(AdminEvent.Kind.ADMIN);
  }

  @Test
  void maintRemovesEvenAnInhibitServerAndReadyBringsItBackAsTheCheckersSay() throws Exception {
    AdminApplier a =
        admin(
            config(web(inhibit("a", "10.16.1.1", 2), rs("b", "10.16.1.2", 1))), QuorumRule.DEFAULT);
    a.init("web", up("a", "b"));
    a.setState("web", "a", AdminState.MAINT);
    assertThat(weight("10.16.1.1")).as("removed, not drained, despite inhibit_on_failure").isNull();
    a.setAlive("web", "a", false);
    assertThat(weight("10.16.1.1")).isNull();

    a.setState("web", "a", AdminState.NONE);
    assertThat(weight("10.16.1.1")).as("checkers say down: inhibit puts it back at 0").isZero();
    a.setAlive("web", "a", true);
    assertThat(weight("10.16.1.1")).isEqualTo(2);
  }

  @Test
  void anAdminWeightHoldsUntilReady() throws Exception {
    AdminApplier a = admin(config(web(rs("a", "10.16.1.1", 1))), QuorumRule.DEFAULT);
    a.init("web", up("a"));
    a.setAdminWeight("web", "a", 7);
    assertThat(weight("10.16.1.1")).isEqualTo(7);
    a.setWeight("web", "a", 4);
    assertThat(weight("10.16.1.1")).isEqualTo(7);
    a.setState("web", "a", AdminState.NONE);
    assertThat(weight("10.16.1.1")).isEqualTo(4);
  }

  @Test
  void drainingBelowQuorumBringsTheSorryServerInAndReadyTakesItOut() throws Exception {
    ServiceBinding vs =
        web(rs("a", "10.16.1.1", 1), rs("b", "10.16.1.2", 1)).withSorryServer(SORRY, false);
    AdminApplier a = admin(config(vs), new QuorumRule(2, 0));
    a.init("web", up("a", "b"));
    assertThat(weight("10.16.9.9")).isNull();

    a.setState("web", "a", AdminState.DRAIN);
    // Serving weight 1 < quorum 2: the sorry server serves, the pool is withdrawn as for verdicts.
    assertThat(weight("10.16.9.9")).isEqualTo(1);
    assertThat(weight("10.16.1.2")).isNull();
    assertThat(a.applier().sorryInstalled("web")).isTrue();

    a.setState("web", "a", AdminState.NONE);
    assertThat(weight("10.16.9.9")).isNull();
    assertThat(weight("10.16.1.1")).isEqualTo(1);
    assertThat(weight("10.16.1.2")).isEqualTo(1);
    assertThat(events)
        .extracting(AdminEvent::kind)
        .containsExactly(
            AdminEvent.Kind.QUORUM_DOWN,
            AdminEvent.Kind.SORRY_IN,
            AdminEvent.Kind.ADMIN,
            AdminEvent.Kind.QUORUM_UP,
            AdminEvent.Kind.SORRY_OUT,
            AdminEvent.Kind.ADMIN);
  }

  @Test
  void withoutAdminSettingsTheEnginesQuorumIsPassedThrough() throws Exception {
    ServiceBinding vs = web(rs("a", "10.16.1.1", 1)).withSorryServer(SORRY, false);
    AdminApplier a = admin(config(vs), new QuorumRule(5, 0));
    a.init("web", up("a"));
    // The engine said up (whatever this layer's arithmetic would say): nothing differs from
    // keepalived.
    assertThat(weight("10.16.9.9")).isNull();
    a.quorum("web", false);
    assertThat(weight("10.16.9.9")).isEqualTo(1);
  }

  @Test
  void aReloadKeepsSettingsOfServersThatStillExistAndDropsAWeightWhoseConfigChanged()
      throws Exception {
    AdminApplier a =
        admin(
            config(web(rs("a", "10.16.1.1", 1), rs("b", "10.16.1.2", 1), rs("c", "10.16.1.3", 1))),
            QuorumRule.DEFAULT);
    a.init("web", up("a", "b", "c"));
    a.setState("web", "a", AdminState.DRAIN);
    a.setAdminWeight("web", "b", 9);
    a.setState("web", "c", AdminState.MAINT);

    a.replace(
        config(web(rs("a", "10.16.1.1", 1), rs("b", "10.16.1.2", 2), rs("c", "10.16.1.3", 1))),
        Map.of("web", QuorumRule.DEFAULT));
    assertThat(a.admin("web", "a").state()).isEqualTo(AdminState.DRAIN);
    assertThat(a.admin("web", "b").weight())
        .as("configured weight changed: the file wins")
        .isNull();
    assertThat(a.admin("web", "c").state()).isEqualTo(AdminState.MAINT);
    // The new engine's initial verdicts arrive as after any reload.
    a.setWeight("web", "b", 2);
    a.setAlive("web", "c", true);
    assertThat(weight("10.16.1.1")).isZero();
    assertThat(weight("10.16.1.2")).isEqualTo(2);
    assertThat(weight("10.16.1.3")).isNull();

    a.replace(config(web(rs("a", "10.16.1.1", 1))), Map.of("web", QuorumRule.DEFAULT));
    assertThat(a.settings()).containsExactly(new ServerAdmin("web", "a", AdminState.DRAIN, null));
  }

  @Test
  void settingsRestoredBeforeStartApplyAtInit() throws Exception {
    AdminApplier a =
        admin(
            config(web(inhibit("a", "10.16.1.1", 1), rs("b", "10.16.1.2", 1))), QuorumRule.DEFAULT);
    List<ServerAdmin> unknown =
        a.restore(
            List.of(
                new ServerAdmin("web", "a", AdminState.MAINT, null),
                new ServerAdmin("web", "b", AdminState.DRAIN, null),
                new ServerAdmin("web", "gone", AdminState.DRAIN, null)));
    assertThat(unknown).extracting(ServerAdmin::realServer).containsExactly("gone");
    a.init("web", up("a", "b"));
    assertThat(weight("10.16.1.1")).as("maint: never installed").isNull();
    assertThat(weight("10.16.1.2")).as("drain: installed at 0").isZero();
  }
}
