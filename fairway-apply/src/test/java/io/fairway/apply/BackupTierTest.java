package io.fairway.apply;

import static io.fairway.apply.Fixtures.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.table.Dest;
import io.fairway.table.DestEntry;
import io.fairway.testkit.RecordingTable;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Backup tiers (SRV priorities): a tier-1 server stays out of the table while a tier-0 server is up
 * by its verdict, comes in when every tier-0 server is down, and goes out again when one is back.
 */
class BackupTierTest {
  final RecordingTable table = new RecordingTable();

  static ServerBinding tier(String name, String addr, int tier, boolean inhibit) {
    return new ServerBinding(name, Dest.of(ip(addr), 80, 1), inhibit, 1, Duration.ZERO, tier);
  }

  static ServiceBinding pool(boolean inhibit) {
    return web(
        tier("a", "10.16.1.1", 0, inhibit),
        tier("b", "10.16.1.2", 0, inhibit),
        tier("spare", "10.16.1.9", 1, inhibit));
  }

  /** The table's pool: address to weight. */
  Map<String, Integer> pool() throws Exception {
    return table.list().get(0).dests().stream()
        .collect(
            Collectors.toMap(
                (DestEntry d) -> d.dest().address().getHostAddress(),
                (DestEntry d) -> d.dest().weight()));
  }

  boolean standby(Applier a, String name) {
    return a.status().get(0).servers().stream()
        .filter(s -> s.name().equals(name))
        .findFirst()
        .orElseThrow()
        .standby();
  }

  @Test
  void aBackupServesOnlyWhileNoLowerTierServerIsUp() throws Exception {
    Applier a = new Applier(table, config(pool(false)));
    a.init("web", up("a", "b", "spare"));
    assertThat(pool()).containsOnlyKeys("10.16.1.1", "10.16.1.2");
    assertThat(standby(a, "spare")).isTrue();
    assertThat(standby(a, "a")).isFalse();

    a.setAlive("web", "a", false);
    assertThat(pool()).containsOnlyKeys("10.16.1.2");
    a.setAlive("web", "b", false);
    // Every tier-0 server down by its verdict: the backup is in, before b went out.
    assertThat(pool()).containsOnlyKeys("10.16.1.9");
    assertThat(pool()).containsEntry("10.16.1.9", 1);
    assertThat(standby(a, "spare")).isFalse();
    List<io.fairway.table.TableOp> ops = table.drain();
    assertThat(ops.indexOf(add("10.16.1.9", 1))).isLessThan(ops.indexOf(del("10.16.1.2")));

    a.setAlive("web", "b", true);
    assertThat(pool()).containsOnlyKeys("10.16.1.2");
    assertThat(standby(a, "spare")).isTrue();
    ops = table.drain();
    assertThat(ops.indexOf(add("10.16.1.2", 1))).isLessThan(ops.indexOf(del("10.16.1.9")));
  }

  @Test
  void aBackupThatIsDownStaysOutWhenTheLowerTierGoes() throws Exception {
    Applier a = new Applier(table, config(pool(false)));
    a.init("web", up("a"));
    a.setAlive("web", "spare", true); // up, but standing by: no table change
    assertThat(pool()).containsOnlyKeys("10.16.1.1");
    a.setAlive("web", "spare", false);
    a.setAlive("web", "a", false);
    assertThat(pool()).isEmpty();
    a.setAlive("web", "spare", true);
    assertThat(pool()).containsOnlyKeys("10.16.1.9");
  }

  @Test
  void withInhibitAStandingByBackupIsAtWeightZero() throws Exception {
    Applier a = new Applier(table, config(pool(true)));
    a.init("web", up("a", "spare"));
    assertThat(pool()).containsEntry("10.16.1.1", 1).containsEntry("10.16.1.9", 0);
    a.setAlive("web", "a", false);
    assertThat(pool()).containsEntry("10.16.1.1", 0).containsEntry("10.16.1.9", 1);
    a.setAlive("web", "a", true);
    assertThat(pool()).containsEntry("10.16.1.1", 1).containsEntry("10.16.1.9", 0);
  }

  @Test
  void maintenanceOfTheLastLowerTierServerBringsTheBackupIn() throws Exception {
    Applier a = new Applier(table, config(pool(false)));
    a.init("web", up("a", "spare"));
    a.setMaint("web", "a", true);
    assertThat(pool()).containsOnlyKeys("10.16.1.9");
    a.setMaint("web", "a", false);
    assertThat(pool()).containsOnlyKeys("10.16.1.1");
  }

  @Test
  void quorumAndTheSorryServerAreUnaffected() throws Exception {
    Applier a = new Applier(table, config(pool(false).withSorryServer(SORRY, false)));
    a.init("web", up("a", "spare"));
    a.quorum("web", false);
    assertThat(pool()).containsOnlyKeys("10.16.9.9");
    a.setAlive("web", "a", false); // recorded only while the sorry server serves
    assertThat(pool()).containsOnlyKeys("10.16.9.9");
    a.quorum("web", true);
    assertThat(pool()).containsOnlyKeys("10.16.1.9");
    a.setAlive("web", "a", true);
    assertThat(pool()).containsOnlyKeys("10.16.1.1");
    a.quorum("web", false);
    assertThat(pool()).containsOnlyKeys("10.16.9.9");
    a.quorum("web", true);
    assertThat(pool()).containsOnlyKeys("10.16.1.1");
  }

  /**
   * keepalived's quorum is the weight of the servers in the pool: a backup standing by is not, so
   * it counts only once it serves. The engine's verdict (which counts every server up) is not taken
   * for a tiered virtual server.
   */
  @Test
  void quorumCountsABackupOnlyOnceItServes() throws Exception {
    ServiceBinding vs =
        web(
                tier("a", "10.16.1.1", 0, false),
                tier("b", "10.16.1.2", 0, false),
                new ServerBinding(
                    "spare", Dest.of(ip("10.16.1.9"), 80, 2), false, 2, Duration.ZERO, 1))
            .withSorryServer(SORRY, false);
    List<AdminEvent> events = new java.util.ArrayList<>();
    AdminApplier a =
        new AdminApplier(
            new Applier(table, config(vs)), Map.of("web", new QuorumRule(2, 0)), events::add);
    a.init("web", up("a", "b", "spare"));
    assertThat(pool()).containsOnlyKeys("10.16.1.1", "10.16.1.2");

    // Serving weight 1 (b): below quorum 2, though a, b and the standing-by spare make 4.
    a.setAlive("web", "a", false);
    a.quorum("web", true); // the engine's count, with the spare: not taken
    assertThat(pool()).containsOnlyKeys("10.16.9.9");
    assertThat(a.applier().sorryInstalled("web")).isTrue();

    // Every tier-0 server down: the spare serves, its weight 2 reaches quorum.
    a.setAlive("web", "b", false);
    assertThat(pool()).containsOnlyKeys("10.16.1.9").containsEntry("10.16.1.9", 2);
    assertThat(a.applier().sorryInstalled("web")).isFalse();

    // b back: the spare stands by again and quorum is b's weight alone, 1.
    a.setAlive("web", "b", true);
    assertThat(pool()).containsOnlyKeys("10.16.9.9");
    assertThat(events)
        .extracting(AdminEvent::kind)
        .containsExactly(
            AdminEvent.Kind.QUORUM_DOWN,
            AdminEvent.Kind.SORRY_IN,
            AdminEvent.Kind.QUORUM_UP,
            AdminEvent.Kind.SORRY_OUT,
            AdminEvent.Kind.QUORUM_DOWN,
            AdminEvent.Kind.SORRY_IN);
    assertThat(events.get(0).reason()).contains("serving weight 1");
    assertThat(events.get(2).reason()).contains("serving weight 2");
  }

  @Test
  void aTieredPoolStartsBelowQuorumWhenOnlyItsBackupsWouldReachIt() throws Exception {
    ServiceBinding vs = pool(false).withSorryServer(SORRY, false);
    AdminApplier a =
        new AdminApplier(
            new Applier(table, config(vs)), Map.of("web", new QuorumRule(3, 0)), e -> {});
    // The engine counts a, b and spare (3) and says up; serving are a and b (2).
    a.init("web", up("a", "b", "spare"));
    assertThat(pool()).containsOnlyKeys("10.16.9.9");
  }

  /**
   * A reload (every DNS change is one) decides standing by over the whole new pool: a backup
   * written before its tier-0 server in the configuration's order stays out.
   */
  @Test
  void aReloadKeepsABackupOutWhateverTheOrderOfTheServers() throws Exception {
    ServiceBinding vs = web(tier("spare", "10.16.1.0", 1, false), tier("a", "10.16.1.1", 0, false));
    Applier a = new Applier(table, config(vs));
    a.init("web", up("a", "spare"));
    table.drain();
    a.replace(config(vs));
    assertThat(pool()).containsOnlyKeys("10.16.1.1");
    assertThat(table.drain()).isEmpty();
  }

  /**
   * A new answer renumbers the tiers (the priority-0 target left the answer, so it is drained for
   * {@code hold} at weight 0): the backup, now tier 0, keeps its verdict and goes in before the
   * leaving server is drained — a move of tier in place, not a new server to check.
   */
  @Test
  void aRenumberedBackupGoesInBeforeTheLeavingServerIsDrained() throws Exception {
    Applier a = new Applier(table, config(pool(false)));
    a.init("web", up("a", "spare"));
    table.drain();
    ServerBinding leaving = new ServerBinding("a", Dest.of(ip("10.16.1.1"), 80, 0), false, 0);
    a.replace(config(web(leaving, tier("spare", "10.16.1.9", 0, false))));
    assertThat(pool()).containsEntry("10.16.1.1", 0).containsEntry("10.16.1.9", 1);
    assertThat(table.drain()).containsExactly(add("10.16.1.9", 1), set("10.16.1.1", 0));
    assertThat(standby(a, "spare")).isFalse();

    // Back to the first answer: a is tier 0 again at its weight, the spare tier 1 goes out after.
    a.replace(config(pool(false)));
    assertThat(pool()).containsOnlyKeys("10.16.1.1").containsEntry("10.16.1.1", 1);
    assertThat(table.drain()).containsExactly(set("10.16.1.1", 1), del("10.16.1.9"));
  }

  /**
   * A lower-tier server at weight 0 takes no new connection, so it holds no backup out: the backup
   * goes in before the weight goes to 0, and out after it is back.
   */
  @Test
  void aLowerTierServerAtWeightZeroHoldsNoBackupOut() throws Exception {
    Applier a = new Applier(table, config(pool(false)));
    a.init("web", up("a", "spare"));
    table.drain();
    a.setWeight("web", "a", 0);
    assertThat(pool()).containsEntry("10.16.1.1", 0).containsEntry("10.16.1.9", 1);
    assertThat(table.drain()).containsExactly(add("10.16.1.9", 1), set("10.16.1.1", 0));
    a.setWeight("web", "a", 2);
    assertThat(pool()).containsOnlyKeys("10.16.1.1").containsEntry("10.16.1.1", 2);
    assertThat(table.drain()).containsExactly(set("10.16.1.1", 2), del("10.16.1.9"));
  }

  /**
   * The tier-0 server left the answer (drained at weight 0 for hold) and the new tier-0 server is
   * not up yet: the backup serves meanwhile, and stands by again once the new server is up.
   */
  @Test
  void aBackupServesWhileTheLeavingServerIsDrainedAndItsSuccessorIsNotUp() throws Exception {
    Applier a = new Applier(table, config(pool(false)));
    a.init("web", up("a", "spare"));
    ServerBinding leaving = new ServerBinding("a", Dest.of(ip("10.16.1.1"), 80, 0), false, 0);
    a.replace(
        config(
            web(leaving, tier("n", "10.16.1.5", 0, false), tier("spare", "10.16.1.9", 1, false))));
    assertThat(pool()).containsEntry("10.16.1.1", 0).containsEntry("10.16.1.9", 1).hasSize(2);
    a.setAlive("web", "n", true);
    assertThat(pool()).containsOnlyKeys("10.16.1.1", "10.16.1.5");
  }

  @Test
  void theDesiredTableAgreesForDriftRepair() throws Exception {
    Applier a = new Applier(table, config(pool(false)));
    a.init("web", up("a", "spare"));
    assertThat(a.desired().values().iterator().next().dests().keySet())
        .containsExactly(key("10.16.1.1"));
    a.setAlive("web", "a", false);
    assertThat(a.desired().values().iterator().next().dests().keySet())
        .containsExactly(key("10.16.1.9"));
  }
}
