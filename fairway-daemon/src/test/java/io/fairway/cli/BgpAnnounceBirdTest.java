package io.fairway.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fairway.cli.BgpLab.Speaker;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three {@code fairway run --userspace} nodes announcing 192.0.2.10 through BIRD 2 to a BIRD router
 * doing ECMP ({@link BgpLab}): the router holds a next hop per node that can serve, every URL
 * reaches the same real server through any node, and a node leaves the route when its real servers
 * fail, on {@code fairway announce off} and on SIGTERM, with no request failing once it has. The
 * IPv6 VIP goes the same way, over IPv6 sessions: a next hop per node, every request answered.
 */
class BgpAnnounceBirdTest {
  @TempDir Path dir;

  // Started by each test that needs it, before any use; closed after each when started.
  @SuppressWarnings("NullAway.Init")
  private BgpLab lab;

  @BeforeAll
  static void programs() {
    BgpLab.requirePrograms();
  }

  @AfterEach
  void cleanUp() throws Exception {
    if (lab != null) {
      lab.close();
    }
  }

  @Test
  void threeNodesBehindEcmpAnnounceWhileTheyCanServe() throws Exception {
    lab = BgpLab.start(dir, List.of(Speaker.BIRD, Speaker.BIRD, Speaker.BIRD));
    // A route of Fairway's protocol left by a crash: removed at start, never announced.
    lab.ipIn(1, "route", "add", "192.0.2.99/32", "dev", "lo", "table", "100", "proto", "250");
    for (int i = 1; i <= BgpLab.NODES; i++) {
      lab.startFairway(i);
    }
    BgpAnnounceScenario s = new BgpAnnounceScenario(lab);
    s.awaitHops(Set.of(1, 2, 3), BgpAnnounceScenario.START);
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> !lab.ipIn(1, "route", "show", "table", "100").contains("192.0.2.99"));
    assertThat(lab.ipIn(1, "route", "show", "table", "100", "proto", "250").strip())
        .startsWith("192.0.2.10 dev lo")
        .doesNotContain("\n");
    s.agreement();
    long v6 = System.nanoTime();
    s.ipv6(Set.of(1, 2, 3));
    System.out.printf("IPv6 step: %d ms%n", (System.nanoTime() - v6) / 1_000_000);
    s.realServersFail(2);
    s.announceOffAndOn(3);
    s.driftRepaired(3);
    s.sigtermUnderLoad(1);
  }
}
