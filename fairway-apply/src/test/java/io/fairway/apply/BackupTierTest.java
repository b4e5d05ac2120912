package io.fairway.apply;

import static io.fairway.apply.Fixtures.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.table.Dest;
import io.fairway.table.DestEntry;
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

  static RealServer tier(String name, String addr, int tier, boolean inhibit) {
    return new RealServer(name, Dest.of(ip(addr), 80, 1), inhibit, 1, Duration.ZERO, tier);
  }

  static VirtualServer pool(boolean inhibit) {
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
   * A reload (every DNS change is one) decides standing by over the whole new pool: a backup
   * written before its tier-0 server in the configuration's order stays out.
   */
  @Test
  void aReloadKeepsABackupOutWhateverTheOrderOfTheServers() throws Exception {
    VirtualServer vs = web(tier("spare", "10.16.1.0", 1, false), tier("a", "10.16.1.1", 0, false));
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
    RealServer leaving = new RealServer("a", Dest.of(ip("10.16.1.1"), 80, 0), false, 0);
    a.replace(config(web(leaving, tier("spare", "10.16.1.9", 0, false))));
    assertThat(pool()).containsEntry("10.16.1.1", 0).containsEntry("10.16.1.9", 1);
    assertThat(table.drain()).containsExactly(add("10.16.1.9", 1), set("10.16.1.1", 0));
    assertThat(standby(a, "spare")).isFalse();

    // Back to the first answer: a is tier 0 again at its weight, the spare tier 1 goes out after.
    a.replace(config(pool(false)));
    assertThat(pool()).containsOnlyKeys("10.16.1.1").containsEntry("10.16.1.1", 1);
    assertThat(table.drain()).containsExactly(set("10.16.1.1", 1), del("10.16.1.9"));
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
