package io.fairway.apply;

import static io.fairway.apply.Fixtures.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fairway.table.TableOp;
import io.fairway.testkit.RecordingTable;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * One test per paragraph of the apply package's contract (package-info.java), each asserting the
 * exact sequence of table operations against a recording table.
 */
class ApplierSequencingTest {
  final RecordingTable table = new RecordingTable();

  Applier applier(ServiceBinding... vss) {
    return new Applier(table, config(vss));
  }

  // "Removing a server and draining a server are different operations"

  @Test
  void aFailedServerIsRemoved() throws Exception {
    Applier a = applier(web(rs("a", "10.16.1.1", 1), rs("b", "10.16.1.2", 1)));
    a.init("web", up("a", "b"));
    table.drain();

    a.setAlive("web", "a", false);

    assertThat(table.drain()).containsExactly(del("10.16.1.1"));
    assertThat(a.present("web", "a")).isFalse();
  }

  @Test
  void inhibitOnFailureDrainsToWeightZeroAndRestoresTheConfiguredWeight() throws Exception {
    Applier a = applier(web(inhibit("a", "10.16.1.1", 3), rs("b", "10.16.1.2", 1)));
    a.init("web", up("a", "b"));
    table.drain();

    a.setAlive("web", "a", false);
    assertThat(table.drain()).containsExactly(set("10.16.1.1", 0));
    assertThat(a.present("web", "a")).isTrue();

    a.setAlive("web", "a", true);
    assertThat(table.drain()).containsExactly(set("10.16.1.1", 3));
  }

  // Init: "A server that starts down — alpha mode — is not installed at all."

  @Test
  void initInstallsTheServiceAndOnlyTheServersThatStartUp() throws Exception {
    Applier a = applier(web(rs("a", "10.16.1.1", 1), rs("alpha", "10.16.1.2", 1)));

    a.init("web", up("a"));

    assertThat(table.drain()).containsExactly(new TableOp.AddService(WEB_SVC), add("10.16.1.1", 1));
    assertThat(a.present("web", "alpha")).isFalse();

    a.setAlive("web", "alpha", true);
    assertThat(table.drain()).containsExactly(add("10.16.1.2", 1));
  }

  @Test
  void anInhibitServerThatStartsDownSitsAtWeightZero() throws Exception {
    // keepalived's init_service_rs: (inhibit && !set) -> ADD_DEST, weight 0 while failing.
    Applier a = applier(web(rs("a", "10.16.1.1", 1), inhibit("alpha", "10.16.1.2", 5)));

    a.init("web", up("a"));

    assertThat(table.drain())
        .containsExactly(new TableOp.AddService(WEB_SVC), add("10.16.1.1", 1), add("10.16.1.2", 0));
    a.setAlive("web", "alpha", true);
    assertThat(table.drain()).containsExactly(set("10.16.1.2", 5));
  }

  @Test
  void initUsesTheFrameworksEffectiveWeights() throws Exception {
    Applier a = applier(web(rs("a", "10.16.1.1", 1), rs("b", "10.16.1.2", 1)));
    a.init("web", new InitialState(java.util.Set.of("a"), Map.of("a", 7, "b", 3), true));
    assertThat(table.drain()).containsExactly(new TableOp.AddService(WEB_SVC), add("10.16.1.1", 7));
    a.setAlive("web", "b", true);
    assertThat(table.drain()).containsExactly(add("10.16.1.2", 3));
  }

  // Init: "A virtual server that starts below quorum gets its sorry server here."

  @Test
  void aColdStartBelowQuorumGetsTheSorryServerAtInit() throws Exception {
    Applier a =
        applier(
            web(rs("a", "10.16.1.1", 1), rs("b", "10.16.1.2", 1)).withSorryServer(SORRY, false));

    a.init("web", belowQuorum());

    assertThat(table.drain()).containsExactly(new TableOp.AddService(WEB_SVC), add("10.16.9.9", 1));
    assertThat(a.sorryInstalled("web")).isTrue();
  }

  @Test
  void belowQuorumAtInitTheAliveServersAreNeverAddedAndWithdrawn() throws Exception {
    Applier a =
        applier(
            web(rs("a", "10.16.1.1", 1), inhibit("b", "10.16.1.2", 1))
                .withSorryServer(SORRY, false));

    a.init("web", belowQuorum("a", "b"));

    // No window where an alive server is in at its weight next to the sorry server.
    assertThat(table.drain())
        .containsExactly(new TableOp.AddService(WEB_SVC), add("10.16.9.9", 1), add("10.16.1.2", 0));
    assertThat(a.present("web", "a")).isFalse();
  }

  @Test
  void withoutASorryServerBelowQuorumChangesNothing() throws Exception {
    Applier a = applier(web(rs("a", "10.16.1.1", 1)));
    a.init("web", belowQuorum("a"));
    assertThat(table.drain()).containsExactly(new TableOp.AddService(WEB_SVC), add("10.16.1.1", 1));
  }

  // ServiceBinding.sorryServerInhibit: "an inhibit sorry server sits in the table from startup at
  // weight zero, so that losing quorum raises a weight rather than inserting an entry"

  @Test
  void anInhibitSorryServerSitsAtWeightZeroFromStartup() throws Exception {
    Applier a = applier(web(rs("a", "10.16.1.1", 1)).withSorryServer(SORRY, true));

    a.init("web", up("a"));
    assertThat(table.drain())
        .containsExactly(new TableOp.AddService(WEB_SVC), add("10.16.1.1", 1), add("10.16.9.9", 0));
    assertThat(a.sorryInstalled("web")).isFalse();

    a.setAlive("web", "a", false);
    a.quorum("web", false);
    assertThat(table.drain()).containsExactly(del("10.16.1.1"), set("10.16.9.9", 1));

    a.setAlive("web", "a", true);
    a.quorum("web", true);
    assertThat(table.drain()).containsExactly(add("10.16.1.1", 1), set("10.16.9.9", 0));
  }

  // Quorum: "The sorry server goes in before the real servers come out and comes out after they
  // go back in."

  @Test
  void theSorryServerGoesInBeforeTheRealServersComeOut() throws Exception {
    Applier a =
        applier(
            web(rs("a", "10.16.1.1", 2), rs("b", "10.16.1.2", 2), inhibit("c", "10.16.1.3", 2))
                .withSorryServer(SORRY, false));
    a.init("web", up("a", "b", "c"));
    a.setAlive("web", "a", false);
    table.drain();

    a.quorum("web", false);

    assertThat(table.drain())
        .containsExactly(add("10.16.9.9", 1), del("10.16.1.2"), set("10.16.1.3", 0));
    assertThat(a.sorryInstalled("web")).isTrue();
  }

  @Test
  void theSorryServerComesOutAfterTheRealServersGoBack() throws Exception {
    Applier a =
        applier(
            web(rs("a", "10.16.1.1", 2), inhibit("c", "10.16.1.3", 2))
                .withSorryServer(SORRY, false));
    a.init("web", belowQuorum());
    table.drain();

    a.setAlive("web", "a", true);
    a.setAlive("web", "c", true);
    assertThat(table.drain()).isEmpty();
    a.quorum("web", true);

    assertThat(table.drain())
        .containsExactly(add("10.16.1.1", 2), set("10.16.1.3", 2), del("10.16.9.9"));
    assertThat(a.sorryInstalled("web")).isFalse();
  }

  // SetAlive: "While the sorry server is serving the table is not touched at all ... The verdict
  // is still recorded, so the pool restored when quorum returns is the one that is healthy then."

  @Test
  void whileTheSorryServerServesVerdictsAreRecordedButTheTableIsUntouched() throws Exception {
    Applier a =
        applier(
            web(rs("a", "10.16.1.1", 1), rs("b", "10.16.1.2", 1), rs("c", "10.16.1.3", 1))
                .withSorryServer(SORRY, false));
    a.init("web", up("a", "b"));
    a.setAlive("web", "a", false);
    a.setAlive("web", "b", false);
    a.quorum("web", false);
    table.drain();

    a.setAlive("web", "a", true); // recovers during the outage
    a.setAlive("web", "c", true); // comes up for the first time during the outage
    a.setAlive("web", "a", false); // and a fails again
    a.setWeight("web", "c", 7);
    assertThat(table.drain()).isEmpty();

    a.quorum("web", true);
    // The pool restored is the one healthy now: c at its new weight, not a.
    assertThat(table.drain()).containsExactly(add("10.16.1.3", 7), del("10.16.9.9"));
  }

  // SetWeight: "changes a live real server's weight"

  @Test
  void setWeightChangesALiveServerAndIsRememberedForADeadOne() throws Exception {
    Applier a = applier(web(rs("a", "10.16.1.1", 1), rs("b", "10.16.1.2", 1)));
    a.init("web", up("a"));
    table.drain();

    a.setWeight("web", "a", 5);
    a.setWeight("web", "a", 5); // unchanged: no call
    a.setWeight("web", "b", 9); // not in the table: recorded only
    assertThat(table.drain()).containsExactly(set("10.16.1.1", 5));

    a.setAlive("web", "b", true);
    assertThat(table.drain()).containsExactly(add("10.16.1.2", 9));
  }

  @Test
  void setWeightClampsLikeKeepalivedRealWeight() throws Exception {
    Applier a = applier(web(rs("a", "10.16.1.1", 1)));
    a.init("web", up("a"));
    table.drain();

    a.setWeight("web", "a", -20);
    a.setWeight("web", "a", 1L << 40);
    assertThat(table.drain())
        .containsExactly(set("10.16.1.1", 0), set("10.16.1.1", Integer.MAX_VALUE));
  }

  // track_file: the weight comes from a file (value x weight, reversed when asked).

  @Test
  void aTrackFileValueBecomesTheServersWeight() throws Exception {
    TrackedFile tf = new TrackedFile("a", "maint", 2, false);
    Applier a =
        new Applier(
            table,
            config(
                new ServiceBinding(
                    "web",
                    java.util.List.of(WEB_SVC),
                    ServiceBinding.byName(java.util.List.of(rs("a", "10.16.1.1", 10))),
                    null,
                    false,
                    java.util.List.of(tf))));
    a.init("web", up("a"));
    table.drain();

    // The operator writes -5 to the file: 10 + (-5 * 2) = 0, drained without a config change.
    a.setWeight("web", "a", 10 + tf.contribution(-5));
    assertThat(table.drain()).containsExactly(set("10.16.1.1", 0));
    assertThat(new TrackedFile("a", "f", 3, true).contribution(4)).isEqualTo(-12);
    assertThat(new TrackedFile("a", "f", 0, false).contribution(1)).isEqualTo(TrackedFile.FAULT);
    assertThat(new TrackedFile("a", "f", 0, false).contribution(0)).isZero();
  }

  // ErrUnknown: "returned for a server or service this applier was not configured with"

  @Test
  void unknownNamesAreErrorsAndChangeNothing() throws Exception {
    Applier a = applier(web(rs("a", "10.16.1.1", 1)));
    a.init("web", up("a"));
    table.drain();

    assertThatThrownBy(() -> a.setAlive("nope", "a", false))
        .isInstanceOf(UnknownServerException.class)
        .hasMessageContaining("virtual server nope");
    assertThatThrownBy(() -> a.setAlive("web", "zz", false))
        .isInstanceOf(UnknownServerException.class)
        .hasMessageContaining("real server zz in virtual server web");
    assertThatThrownBy(() -> a.setWeight("web", "zz", 1))
        .isInstanceOf(UnknownServerException.class);
    assertThatThrownBy(() -> a.quorum("nope", false)).isInstanceOf(UnknownServerException.class);
    assertThatThrownBy(() -> a.present("web", "zz")).isInstanceOf(UnknownServerException.class);
    assertThatThrownBy(() -> a.sorryInstalled("nope")).isInstanceOf(UnknownServerException.class);
    assertThatThrownBy(() -> a.init("web", up("zz"))).isInstanceOf(UnknownServerException.class);
    assertThat(table.drain()).isEmpty();
  }

  // Batching and ipvs_talk's tolerance.

  @Test
  void initAndQuorumSwapsAreSentAsOneBatchEach() throws Exception {
    Applier a =
        applier(
            web(rs("a", "10.16.1.1", 1), rs("b", "10.16.1.2", 1), rs("c", "10.16.1.3", 1))
                .withSorryServer(SORRY, false));
    a.init("web", up("a", "b", "c"));
    a.quorum("web", false);
    assertThat(table.batches).containsExactly(4, 4);
    a.setAlive("web", "a", true); // a single verdict is a single call
    assertThat(table.batches).hasSize(2);
  }

  @Test
  void leftoversFromAPreviousRunAreCorrectedNotTrusted() throws Exception {
    // keepalived treats EEXIST on add as success and keeps a stale weight; Fairway sets it.
    table.addService(io.fairway.table.Service.of(WEB, "wlc"));
    table.addDest(WEB, io.fairway.table.Dest.of(ip("10.16.1.1"), 80, 9));
    Applier a = applier(web(rs("a", "10.16.1.1", 1)));
    a.init("web", up("a"));
    assertThat(table.services.get(WEB).scheduler()).isEqualTo("rr");
    assertThat(table.weight(WEB, key("10.16.1.1"))).isEqualTo(1);
  }

  @Test
  void aSetThatFindsNoDestinationAdds() throws Exception {
    Applier a = applier(web(inhibit("a", "10.16.1.1", 2)));
    a.init("web", up("a"));
    table.dests.get(WEB).clear(); // removed behind our back
    table.drain();
    a.setAlive("web", "a", false); // inhibit: SET weight 0 -> ENOENT -> ADD
    assertThat(table.drain()).containsExactly(add("10.16.1.1", 0));
  }

  // Direct routing and tunnelling take the service's port (ipvs_cmd).

  @Test
  void directRoutingDestinationsTakeTheServicePort() throws Exception {
    ServerBinding dr = new ServerBinding("d", dr("10.16.1.5", 8080), false, 1);
    Applier a = applier(ServiceBinding.of("web", WEB_SVC, java.util.List.of(dr)));
    a.init("web", up("d"));
    assertThat(table.weight(WEB, new io.fairway.table.DestKey(ip("10.16.1.5"), 80))).isEqualTo(1);
  }

  @Test
  void removeAllTakesOutEverythingFairwayInstalled() throws Exception {
    Applier a = applier(web(rs("a", "10.16.1.1", 1)).withSorryServer(SORRY, true));
    a.init("web", up("a"));
    table.drain();
    a.removeAll();
    assertThat(table.drain())
        .containsExactly(del("10.16.9.9"), del("10.16.1.1"), new TableOp.DelService(WEB));
    assertThat(table.services).isEmpty();
  }

  @Test
  void aRefusedChangeIsNotRecordedSoTheSameVerdictRetries() throws Exception {
    Applier a = applier(web(rs("a", "10.16.1.1", 1)));
    a.init("web", up());
    table.services.clear(); // the service vanished: the add is refused with ESRCH
    table.dests.clear();
    assertThatThrownBy(() -> a.setAlive("web", "a", true))
        .isInstanceOf(io.fairway.table.TableException.class);
    assertThat(a.present("web", "a")).isFalse();
    table.addService(WEB_SVC);
    a.setAlive("web", "a", true);
    assertThat(a.present("web", "a")).isTrue();
    assertThat(Map.copyOf(table.dests.get(WEB))).containsKey(key("10.16.1.1"));
  }
}
