package io.fairway.apply;

import static io.fairway.apply.Fixtures.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.table.Dest;
import io.fairway.table.Protocol;
import io.fairway.table.Service;
import io.fairway.table.ServiceKey;
import io.fairway.testkit.RecordingTable;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Drift repair: someone ran ipvsadm behind Fairway's back. */
class DriftRepairTest {
  final RecordingTable table = new RecordingTable();

  Applier started() throws Exception {
    Applier a =
        new Applier(
            table,
            config(
                web(rs("a", "10.16.1.1", 2), rs("b", "10.16.1.2", 1), inhibit("c", "10.16.1.3", 1))
                    .withSorryServer(SORRY, true)));
    a.init("web", up("a", "b"));
    return a;
  }

  @Test
  void aTableInAgreementHasNoDrift() throws Exception {
    Applier a = started();
    table.drain();
    assertThat(a.repairDrift()).isEmpty();
    assertThat(table.drain()).isEmpty();
  }

  @Test
  void deletedChangedAndForeignDestinationsAreConverged() throws Exception {
    Applier a = started();
    table.delDest(WEB, key("10.16.1.1")); // ipvsadm -d
    table.setDest(WEB, Dest.of(ip("10.16.1.2"), 80, 50)); // ipvsadm -e -w 50
    table.addDest(WEB, Dest.of(ip("10.16.7.7"), 80, 1)); // ipvsadm -a
    ServiceKey foreign = ServiceKey.of(Protocol.TCP, ip("10.16.0.99"), 22);
    table.addService(Service.of(foreign, "rr")); // not ours: left alone
    table.drain();

    List<Drift> drifts = a.repairDrift();

    assertThat(drifts)
        .extracting(Drift::kind)
        .containsExactlyInAnyOrder(
            Drift.Kind.MISSING_DEST, Drift.Kind.CHANGED_DEST, Drift.Kind.EXTRA_DEST);
    assertThat(table.weight(WEB, key("10.16.1.1"))).isEqualTo(2);
    assertThat(table.weight(WEB, key("10.16.1.2"))).isEqualTo(1);
    assertThat(table.weight(WEB, key("10.16.7.7"))).isNull();
    assertThat(table.weight(WEB, key("10.16.1.3"))).isZero();
    assertThat(table.services).containsKey(foreign);
    assertThat(a.repairDrift()).as("converged").isEmpty();
  }

  @Test
  void aDeletedServiceIsRecreatedWithItsDestinations() throws Exception {
    Applier a = started();
    table.delService(WEB); // ipvsadm -D
    List<Drift> drifts = a.repairDrift();
    assertThat(drifts).extracting(Drift::kind).containsExactly(Drift.Kind.MISSING_SERVICE);
    assertThat(table.dests.get(WEB)).hasSize(4);
    assertThat(table.weight(WEB, SORRY.key())).isZero();
    assertThat(drifts.get(0).toString()).contains("TCP 10.16.0.1:80").contains("missing service");
  }

  @Test
  void aChangedSchedulerIsSetBack() throws Exception {
    Applier a = started();
    table.setService(Service.of(WEB, "wlc"));
    assertThat(a.repairDrift()).extracting(Drift::kind).containsExactly(Drift.Kind.CHANGED_SERVICE);
    assertThat(table.services.get(WEB).scheduler()).isEqualTo("rr");
  }

  @Test
  void presenceFollowsTheRepairedTable() throws Exception {
    Applier a = started();
    table.delDest(WEB, key("10.16.1.1"));
    a.repairDrift();
    assertThat(a.present("web", "a")).isTrue();
    table.drain();
    a.setAlive("web", "a", false);
    assertThat(table.drain()).containsExactly(del("10.16.1.1"));
  }
}
