package io.fairway.apply;

import static io.fairway.apply.Fixtures.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.table.Dest;
import io.fairway.table.ForwardingMethod;
import io.fairway.table.Protocol;
import io.fairway.table.Service;
import io.fairway.table.ServiceKey;
import io.fairway.table.TableOp;
import io.fairway.testkit.RecordingTable;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Replace: "The presence tracking is kept, not reset ... Entries for virtual servers that no longer
 * exist are dropped."
 */
class ApplierReloadTest {
  final RecordingTable table = new RecordingTable();

  @Test
  void presenceTrackingSurvivesAReloadSoTheNextVerdictIsNotADuplicateAdd() throws Exception {
    Applier a = new Applier(table, config(web(rs("a", "10.16.1.1", 1), rs("b", "10.16.1.2", 1))));
    a.init("web", up("a", "b"));
    table.drain();

    a.replace(config(web(rs("a", "10.16.1.1", 1), rs("b", "10.16.1.2", 1))));
    assertThat(table.drain()).as("an unchanged reload changes nothing").isEmpty();
    assertThat(a.present("web", "a")).isTrue();

    a.setAlive("web", "a", false);
    a.setAlive("web", "a", true);
    assertThat(table.drain()).containsExactly(del("10.16.1.1"), add("10.16.1.1", 1));
    assertThat(table.refused).isEmpty();
  }

  @Test
  void virtualServersThatAreGoneAreRemovedAndDropped() throws Exception {
    ServiceKey otherKey = ServiceKey.of(Protocol.TCP, ip("10.16.0.2"), 443);
    ServiceBinding other =
        ServiceBinding.of("tls", Service.of(otherKey, "wlc"), List.of(rs("t", "10.16.2.1", 1)));
    Applier a = new Applier(table, config(web(rs("a", "10.16.1.1", 1)), other));
    a.init("web", up("a"));
    a.init("tls", up("t"));
    table.drain();

    a.replace(config(web(rs("a", "10.16.1.1", 1))));

    assertThat(table.drain())
        .containsExactly(
            new TableOp.DelDest(otherKey, new io.fairway.table.DestKey(ip("10.16.2.1"), 80)),
            new TableOp.DelService(otherKey));
    assertThat(a.names()).containsExactly("web");
    assertThat(a.status()).hasSize(1);
  }

  @Test
  void removedServersAreDeletedEvenWhenInhibitAndNewOnesWaitForTheirFirstVerdict()
      throws Exception {
    Applier a =
        new Applier(table, config(web(inhibit("a", "10.16.1.1", 1), rs("b", "10.16.1.2", 1))));
    a.init("web", up("b"));
    table.drain();

    a.replace(
        config(
            web(rs("b", "10.16.1.2", 1), rs("c", "10.16.1.3", 1), inhibit("d", "10.16.1.4", 2))));

    // a leaves for good (forced delete despite inhibit); c waits; d sits at weight 0.
    assertThat(table.drain()).containsExactly(del("10.16.1.1"), add("10.16.1.4", 0));
    assertThat(a.present("web", "c")).isFalse();
    a.setAlive("web", "c", true);
    a.setAlive("web", "d", true);
    assertThat(table.drain()).containsExactly(add("10.16.1.3", 1), set("10.16.1.4", 2));
  }

  @Test
  void aFailedServerIsNotReAddedByAReload() throws Exception {
    Applier a = new Applier(table, config(web(rs("a", "10.16.1.1", 1), rs("b", "10.16.1.2", 1))));
    a.init("web", up("a", "b"));
    a.setAlive("web", "a", false);
    table.drain();
    a.replace(config(web(rs("a", "10.16.1.1", 5), rs("b", "10.16.1.2", 1))));
    assertThat(table.drain()).isEmpty();
    a.setAlive("web", "a", true);
    assertThat(table.drain()).containsExactly(add("10.16.1.1", 5));
  }

  @Test
  void changedWeightForwardingAndThresholdsAreSetInPlace() throws Exception {
    Applier a = new Applier(table, config(web(rs("a", "10.16.1.1", 1), rs("b", "10.16.1.2", 1))));
    a.init("web", up("a", "b"));
    a.setWeight("web", "a", 3); // +2 from a dynamic tracker
    table.drain();

    Dest thresholds = new Dest(ip("10.16.1.2"), 80, ForwardingMethod.MASQ, 1, 100, 50, null);
    a.replace(
        config(
            web(
                new ServerBinding("a", Dest.of(ip("10.16.1.1"), 80, 4), false, 4),
                new ServerBinding("b-renamed", thresholds, false, 1))));

    // a keeps its +2: 4 + 2; b keeps its state under its new name and gets its thresholds.
    assertThat(table.drain())
        .containsExactly(set("10.16.1.1", 6), new TableOp.SetDest(WEB, thresholds));
    assertThat(a.present("web", "b-renamed")).isTrue();
  }

  @Test
  void aChangedSchedulerIsSetNotRecreated() throws Exception {
    Applier a = new Applier(table, config(web(rs("a", "10.16.1.1", 1))));
    a.init("web", up("a"));
    table.drain();
    Service wlc = Service.of(WEB, "wlc");
    a.replace(config(ServiceBinding.of("web", wlc, List.of(rs("a", "10.16.1.1", 1)))));
    assertThat(table.drain()).containsExactly(new TableOp.SetService(wlc));
  }

  @Test
  void aSorryServerRemovedWhileServingGivesThePoolBackFirst() throws Exception {
    Applier a =
        new Applier(table, config(web(rs("a", "10.16.1.1", 1)).withSorryServer(SORRY, false)));
    a.init("web", belowQuorum());
    a.setAlive("web", "a", true); // recorded only: the sorry server serves
    table.drain();

    a.replace(config(web(rs("a", "10.16.1.1", 1))));

    assertThat(table.drain()).containsExactly(add("10.16.1.1", 1), del("10.16.9.9"));
    assertThat(a.sorryInstalled("web")).isFalse();
  }

  @Test
  void aSorryServerAddedWhileBelowQuorumGoesInBeforeThePoolComesOut() throws Exception {
    Applier a = new Applier(table, config(web(rs("a", "10.16.1.1", 1), rs("b", "10.16.1.2", 1))));
    a.init("web", up("a", "b"));
    a.setAlive("web", "b", false);
    a.quorum("web", false);
    table.drain();

    a.replace(
        config(
            web(rs("a", "10.16.1.1", 1), rs("b", "10.16.1.2", 1)).withSorryServer(SORRY, false)));

    assertThat(table.drain()).containsExactly(add("10.16.9.9", 1), del("10.16.1.1"));
    assertThat(a.sorryInstalled("web")).isTrue();
  }

  @Test
  void aKeptSorryServerStaysAcrossAReload() throws Exception {
    // keepalived #490: a reload trashed an active sorry server.
    Applier a =
        new Applier(table, config(web(rs("a", "10.16.1.1", 1)).withSorryServer(SORRY, false)));
    a.init("web", belowQuorum());
    table.drain();
    a.replace(
        config(
            web(rs("a", "10.16.1.1", 1), rs("n", "10.16.1.7", 1)).withSorryServer(SORRY, false)));
    assertThat(table.drain()).isEmpty();
    assertThat(a.sorryInstalled("web")).isTrue();
    a.setAlive("web", "n", true);
    assertThat(table.drain()).as("recorded only while the sorry server serves").isEmpty();
  }

  @Test
  void aGroupThatGrowsGetsTheNewServiceFilled() throws Exception {
    ServiceKey second = ServiceKey.of(Protocol.TCP, ip("10.16.0.3"), 80);
    Applier a = new Applier(table, config(web(rs("a", "10.16.1.1", 1))));
    a.init("web", up("a"));
    table.drain();
    ServiceBinding grown =
        new ServiceBinding(
            "web",
            List.of(WEB_SVC, Service.of(second, "rr")),
            ServiceBinding.byName(List.of(rs("a", "10.16.1.1", 1))),
            null,
            false,
            List.of());
    a.replace(config(grown));
    assertThat(table.drain())
        .containsExactly(
            new TableOp.AddService(Service.of(second, "rr")),
            new TableOp.AddDest(second, Dest.of(ip("10.16.1.1"), 80, 1)));
    a.setAlive("web", "a", false);
    assertThat(table.drain())
        .containsExactly(del("10.16.1.1"), new TableOp.DelDest(second, key("10.16.1.1")));
  }

  @Test
  void aNewVirtualServerWaitsForInit() throws Exception {
    Applier a = new Applier(table, config(web(rs("a", "10.16.1.1", 1))));
    a.init("web", up("a"));
    table.drain();
    ServiceKey k = ServiceKey.of(Protocol.UDP, ip("10.16.0.5"), 53);
    ServiceBinding dns =
        ServiceBinding.of("dns", Service.of(k, "rr"), List.of(rs("d", "10.16.3.1", 1)));
    a.replace(config(web(rs("a", "10.16.1.1", 1)), dns));
    assertThat(table.drain()).isEmpty();
    a.init("dns", up("d"));
    assertThat(table.services).containsKey(k);
  }
}
