package io.fairway.cli;

import io.fairway.cli.BgpLab.Speaker;
import io.fairway.testkit.ExternalPrograms;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link BgpAnnounceBirdTest}'s network with FRR (zebra's {@code ip import-table 100}, bgpd's
 * {@code redistribute table 100}) on node 1 instead of BIRD: the table is the contract, whichever
 * daemon exports it. Node 1 is the one that fails, is turned off and is stopped. Before the stop,
 * the router's BIRD is replaced by FRR running examples/bgp/frr-router.conf as shipped, so the
 * shipped router file is shown to install one next hop per node and to drop the stopped one.
 */
class BgpAnnounceFrrTest {
  @TempDir Path dir;

  // Started by each test that needs it, before any use; closed after each when started.
  @SuppressWarnings("NullAway.Init")
  private BgpLab lab;

  @BeforeAll
  static void programs() {
    BgpLab.requirePrograms();
    ExternalPrograms.require("zebra", "/usr/lib/frr/zebra");
    ExternalPrograms.require("bgpd", "/usr/lib/frr/bgpd");
    ExternalPrograms.require("vtysh", "/usr/bin/vtysh");
  }

  @AfterEach
  void cleanUp() throws Exception {
    if (lab != null) {
      lab.close();
    }
  }

  @Test
  void anFrrNodeIsAnnouncedAndWithdrawnAsTheBirdOnes() throws Exception {
    lab = BgpLab.start(dir, List.of(Speaker.FRR, Speaker.BIRD, Speaker.BIRD));
    for (int i = 1; i <= BgpLab.NODES; i++) {
      lab.startFairway(i);
    }
    BgpAnnounceScenario s = new BgpAnnounceScenario(lab);
    s.awaitHops(Set.of(1, 2, 3), BgpAnnounceScenario.START);
    s.agreement();
    s.realServersFail(1);
    s.announceOffAndOn(1);
    // The router as examples/bgp/frr-router.conf ships it, with both kinds of node behind it: one
    // next hop per node, and node 1's goes at its SIGTERM.
    long swap = System.nanoTime();
    lab.routerToFrr();
    s.awaitHops(Set.of(1, 2, 3), BgpAnnounceScenario.CHANGE);
    System.out.printf(
        "router on FRR with 3 next hops after %d ms%n", (System.nanoTime() - swap) / 1_000_000);
    s.sigtermUnderLoad(1);
  }
}
