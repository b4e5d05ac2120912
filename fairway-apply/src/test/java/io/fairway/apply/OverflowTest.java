package io.fairway.apply;

import static io.fairway.apply.Fixtures.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.table.Dest;
import io.fairway.table.DestEntry;
import io.fairway.table.Protocol;
import io.fairway.table.Service;
import io.fairway.table.ServiceKey;
import io.fairway.table.Stats;
import io.fairway.table.TableOp;
import io.fairway.testkit.RecordingTable;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * overflow_to_sorry_server on a table that cannot overflow by itself: the standing-by sorry server,
 * the watch's reading of the kernel's counters, and how overflow and quorum share the sorry server.
 * Exact operations against the recording table, counters set by the test.
 */
class OverflowTest {
  final RecordingTable table = new RecordingTable();

  static ServerBinding capped(String name, String addr, int upper, int lower) {
    return new ServerBinding(
        name,
        new Dest(ip(addr), 80, io.fairway.table.ForwardingMethod.MASQ, 1, upper, lower, null),
        false,
        1);
  }

  static ServiceBinding pool(boolean overflow, boolean sorryInhibit) {
    return web(
            capped("a", "10.16.1.1", 4, 0),
            capped("b", "10.16.1.2", 4, 0),
            capped("c", "10.16.1.3", 4, 2))
        .withSorryServer(SORRY, sorryInhibit)
        .withOverflow(overflow);
  }

  Applier started(ServiceBinding vs) throws Exception {
    Applier a = new Applier(table, config(vs));
    a.init("web", up("a", "b", "c"));
    return a;
  }

  void load(String addr, int active, int inactive) {
    table.load(key(addr), active, inactive);
  }

  void fillPool() {
    load("10.16.1.1", 4, 0);
    load("10.16.1.2", 3, 1);
    load("10.16.1.3", 4, 0);
  }

  static TableOp sorry(int w) {
    return new TableOp.SetDest(WEB, SORRY.withWeight(w));
  }

  // --- the estimate of the kernel's OVERLOAD flag --------------------------------------------

  static DestEntry entry(int weight, int upper, int lower, int active, int inactive) {
    return new DestEntry(
        new Dest(
            ip("10.16.1.1"),
            80,
            io.fairway.table.ForwardingMethod.MASQ,
            weight,
            upper,
            lower,
            null),
        active,
        inactive,
        0,
        Stats.ZERO);
  }

  @Test
  void theOverloadFlagIsSetAtTheUpperMarkAndClearedBelowTheLowerOneAsTheKernelDoes() {
    PoolRoom room = new PoolRoom();
    var none = key("10.16.9.9");
    assertThat(room.hasRoom(List.of(entry(1, 4, 0, 3, 0)), none)).isTrue();
    assertThat(room.hasRoom(List.of(entry(1, 4, 0, 3, 1)), none))
        .as("active+inactive = u")
        .isFalse();
    // 3 is not below 3/4 of 4: the flag stays, exactly as the kernel keeps it.
    assertThat(room.hasRoom(List.of(entry(1, 4, 0, 3, 0)), none)).isFalse();
    assertThat(room.hasRoom(List.of(entry(1, 4, 0, 2, 0)), none)).isTrue();
    // Coming up from below, 3 is room: the flag was never set.
    assertThat(room.hasRoom(List.of(entry(1, 4, 0, 3, 0)), none)).isTrue();

    PoolRoom low = new PoolRoom();
    assertThat(low.hasRoom(List.of(entry(1, 10, 5, 10, 0)), none)).isFalse();
    assertThat(low.hasRoom(List.of(entry(1, 10, 5, 5, 0)), none)).as("not below l").isFalse();
    assertThat(low.hasRoom(List.of(entry(1, 10, 5, 4, 0)), none)).isTrue();

    // Raising the upper threshold clears the flag at once (__ip_vs_update_dest).
    PoolRoom raised = new PoolRoom();
    assertThat(raised.hasRoom(List.of(entry(1, 4, 0, 4, 0)), none)).isFalse();
    assertThat(raised.hasRoom(List.of(entry(1, 8, 0, 4, 0)), none)).isTrue();

    // No threshold: never overloaded; weight 0: never schedulable.
    assertThat(new PoolRoom().hasRoom(List.of(entry(1, 0, 0, 1000, 0)), none)).isTrue();
    assertThat(new PoolRoom().hasRoom(List.of(entry(0, 0, 0, 0, 0)), none)).isFalse();
    assertThat(new PoolRoom().hasRoom(List.of(), none)).as("nobody at all").isFalse();
  }

  @Test
  void theSorryServerIsNotPartOfThePool() {
    DestEntry sorryEntry = new DestEntry(SORRY, 0, 0, 0, Stats.ZERO);
    assertThat(new PoolRoom().hasRoom(List.of(entry(1, 4, 0, 4, 0), sorryEntry), SORRY.key()))
        .isFalse();
  }

  // --- the sorry server stands by, and the watch raises and lowers it ------------------------

  @Test
  void withOverflowTheSorryServerStandsByAtWeightZeroFromStart() throws Exception {
    started(pool(true, false));
    assertThat(table.drain()).endsWith(new TableOp.AddDest(WEB, SORRY.withWeight(0)));
  }

  @Test
  void withoutTheKeywordNothingStandsByAndTheWatchDoesNothing() throws Exception {
    Applier a = started(pool(false, false));
    assertThat(table.weight(WEB, SORRY.key())).isNull();
    OverflowWatch w = new OverflowWatch(a);
    fillPool();
    assertThat(w.poll()).isEmpty();
    table.drain();
    assertThat(table.weight(WEB, SORRY.key())).isNull();
  }

  @Test
  void aFullPoolRaisesTheSorryServerAndRoomLowersItAgain() throws Exception {
    Applier a = started(pool(true, false));
    OverflowWatch w = new OverflowWatch(a);
    table.drain();

    load("10.16.1.1", 4, 0);
    load("10.16.1.2", 4, 0);
    load("10.16.1.3", 3, 0);
    assertThat(w.poll()).as("c still has room: nothing early").isEmpty();
    assertThat(table.drain()).isEmpty();

    load("10.16.1.3", 4, 0);
    assertThat(w.poll()).containsExactly(new OverflowWatch.Change("web", WEB, true));
    assertThat(table.drain()).containsExactly(sorry(1));
    assertThat(a.overflowing("web")).containsExactly(WEB);
    assertThat(w.poll()).as("steady overflow: no more calls").isEmpty();

    // One connection of a closes: 3 of 4 is not below 3/4, a stays overloaded.
    load("10.16.1.1", 3, 0);
    assertThat(w.poll()).isEmpty();
    // c's lthreshold is 2: 2 is not below it either.
    load("10.16.1.3", 2, 0);
    assertThat(w.poll()).isEmpty();
    // Two of a's connections gone: a has room, new connections go to the pool.
    load("10.16.1.1", 2, 0);
    assertThat(w.poll()).containsExactly(new OverflowWatch.Change("web", WEB, false));
    assertThat(table.drain()).containsExactly(sorry(0));
    assertThat(a.overflowing("web")).isEmpty();
    // Drift repair agrees with the watch at every step.
    assertThat(a.repairDrift()).isEmpty();
  }

  @Test
  void aPoolOfQuiescedServersOverflowsToo() throws Exception {
    ServiceBinding vs =
        web(inhibit("a", "10.16.1.1", 1), inhibit("b", "10.16.1.2", 1))
            .withSorryServer(SORRY, false)
            .withOverflow(true);
    Applier a = new Applier(table, config(vs));
    a.init("web", up("a", "b"));
    OverflowWatch w = new OverflowWatch(a);
    a.setWeight("web", "a", 0); // a track_file drained it; quorum (b's weight) holds
    assertThat(w.poll()).isEmpty();
    a.setWeight("web", "b", 0);
    table.drain();
    assertThat(w.poll()).containsExactly(new OverflowWatch.Change("web", WEB, true));
    assertThat(table.drain()).containsExactly(sorry(1));
    assertThat(a.repairDrift()).as("desired() knows the sorry server is raised").isEmpty();
  }

  @Test
  void eachServiceOfAGroupOverflowsOnItsOwn() throws Exception {
    ServiceKey other = ServiceKey.of(Protocol.TCP, ip("10.16.0.2"), 80);
    ServiceBinding vs =
        new ServiceBinding(
            "web",
            List.of(WEB_SVC, Service.of(other, "rr")),
            ServiceBinding.byName(List.of(capped("a", "10.16.1.1", 4, 0))),
            SORRY,
            false,
            List.of(),
            true);
    Applier a = new Applier(table, config(vs));
    a.init("web", up("a"));
    OverflowWatch w = new OverflowWatch(a);
    table.drain();
    // Each service is read and raised on its own (the kernel counts per service; this table's
    // counters are per destination, so here both fill at once).
    load("10.16.1.1", 4, 0);
    assertThat(w.poll())
        .containsExactly(
            new OverflowWatch.Change("web", WEB, true),
            new OverflowWatch.Change("web", other, true));
    assertThat(table.drain())
        .containsExactly(sorry(1), new TableOp.SetDest(other, SORRY.withWeight(1)));
  }

  // --- quorum and overflow share the sorry server --------------------------------------------

  @Test
  void quorumLostWhileOverflowingKeepsTheSorryServerUpAndItsReturnStartsFromRoom()
      throws Exception {
    Applier a = started(pool(true, false));
    OverflowWatch w = new OverflowWatch(a);
    fillPool();
    w.poll();
    table.drain();

    a.quorum("web", false);
    // The sorry server is already at its weight (set again, harmlessly), then the pool leaves.
    assertThat(table.drain())
        .containsExactly(sorry(1), del("10.16.1.1"), del("10.16.1.2"), del("10.16.1.3"));
    assertThat(a.sorryInstalled("web")).isTrue();
    assertThat(w.poll()).as("quorum loss owns the sorry server now").isEmpty();
    assertThat(a.overflowing("web")).isEmpty();

    // Quorum back with the pool still full: the servers go in, the sorry server down to 0 (it
    // stands by, it is not deleted), and the next reading raises it again.
    a.quorum("web", true);
    List<TableOp> back = table.drain();
    assertThat(back).endsWith(sorry(0));
    assertThat(back).doesNotContain(new TableOp.DelDest(WEB, SORRY.key()));
    assertThat(w.poll()).containsExactly(new OverflowWatch.Change("web", WEB, true));
    assertThat(table.drain()).containsExactly(sorry(1));
  }

  @Test
  void overflowWhileQuorumIsLostChangesNothing() throws Exception {
    Applier a = started(pool(true, false));
    OverflowWatch w = new OverflowWatch(a);
    a.quorum("web", false);
    table.drain();
    fillPool();
    assertThat(w.poll()).isEmpty();
    assertThat(table.drain()).isEmpty();
    assertThat(table.weight(WEB, SORRY.key())).isEqualTo(1);
    assertThat(a.repairDrift()).isEmpty();
  }

  @Test
  void sorryServerInhibitWithOverflowStandsByAndComesBackToZero() throws Exception {
    Applier a = started(pool(true, true));
    assertThat(table.weight(WEB, SORRY.key())).isEqualTo(0);
    a.quorum("web", false);
    assertThat(table.weight(WEB, SORRY.key())).isEqualTo(1);
    a.quorum("web", true);
    assertThat(table.weight(WEB, SORRY.key())).isEqualTo(0);
    OverflowWatch w = new OverflowWatch(a);
    fillPool();
    assertThat(w.poll()).hasSize(1);
    assertThat(table.weight(WEB, SORRY.key())).isEqualTo(1);
  }

  @Test
  void withoutOverflowQuorumReturnStillDeletesTheSorryServerAsKeepalivedDoes() throws Exception {
    Applier a = started(pool(false, false));
    a.quorum("web", false);
    a.quorum("web", true);
    assertThat(table.weight(WEB, SORRY.key())).isNull();
  }

  // --- reload --------------------------------------------------------------------------------

  @Test
  void aReloadKeepsOverflowingAndTurningItOffWithdrawsTheSorryServer() throws Exception {
    Applier a = started(pool(true, false));
    OverflowWatch w = new OverflowWatch(a);
    fillPool();
    w.poll();
    table.drain();

    a.replace(config(pool(true, false)));
    assertThat(table.drain()).as("same file, nothing to change").isEmpty();
    assertThat(a.overflowing("web")).containsExactly(WEB);

    a.replace(config(pool(false, false)));
    assertThat(table.drain()).containsExactly(new TableOp.DelDest(WEB, SORRY.key()));
    assertThat(a.overflowing("web")).isEmpty();
    assertThat(w.poll()).isEmpty();
    assertThat(a.repairDrift()).isEmpty();
  }

  @Test
  void turningOverflowOnByReloadPutsTheSorryServerOnStandby() throws Exception {
    Applier a = started(pool(false, false));
    table.drain();
    a.replace(Map.of("web", pool(true, false)));
    assertThat(table.drain()).containsExactly(new TableOp.AddDest(WEB, SORRY.withWeight(0)));
  }
}
