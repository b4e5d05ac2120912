package io.fairway.plan;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.config.KeepalivedConfig;
import io.fairway.config.ParseOptions;
import io.fairway.table.SyncDaemon;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** lvs_sync_daemon in the plan: typed, the kernel's defaults left to the kernel, in the dump. */
class SyncPlanTest {
  private static final String VI_1 =
      "vrrp_instance VI_1 {\n interface eth0\n" + " virtual_router_id 51\n}\n";

  static Plan plan(String text) throws PlanException {
    return PlanBuilder.build(
        KeepalivedConfig.parse("t.conf", text, Path.of("."), ParseOptions.defaults()).config());
  }

  @Test
  void theSyncDaemonIsTypedWithTheInstanceItFollows() throws Exception {
    Plan p = plan("global_defs {\n lvs_sync_daemon eth1 VI_1 ttl 2 group 239.0.0.9\n}\n" + VI_1);
    Plan.Sync s = p.sync().orElseThrow();
    assertThat(s)
        .isEqualTo(
            new Plan.Sync(
                "t.conf:2",
                "eth1",
                51,
                0,
                0,
                2,
                Optional.of(InetAddress.getByName("239.0.0.9")),
                Optional.of("VI_1")));
    assertThat(s.daemon(SyncDaemon.Role.BACKUP))
        .isEqualTo(
            new SyncDaemon(
                SyncDaemon.Role.BACKUP, "eth1", 51, 0, 0, 2, InetAddress.getByName("239.0.0.9")));
    assertThat(PlanFormat.comment(p))
        .contains(
            "# lvs_sync_daemon interface eth1 syncid 51 maxlen"
                + " kernel port 8848 ttl 2 group 239.0.0.9 follows vrrp_instance VI_1\n");
  }

  @Test
  void noKeywordNoSync() throws Exception {
    Plan none = plan(VI_1);
    assertThat(none.sync()).isEmpty();
    assertThat(PlanFormat.comment(none)).doesNotContain("lvs_sync_daemon");
    Plan both = plan("global_defs {\n lvs_sync_daemon eth1\n}\n");
    assertThat(both.sync().orElseThrow().instance()).isEmpty();
    assertThat(PlanFormat.comment(both)).contains("master and backup always");
  }

  @Test
  void aReloadSaysWhatChangedInTheSyncDaemonAndAMovedLineIsNoChange() throws Exception {
    Plan none = plan(VI_1);
    Plan both = plan("global_defs {\n lvs_sync_daemon eth1\n}\n" + VI_1);
    Plan following = plan("global_defs {\n lvs_sync_daemon eth1 VI_1 id 0\n}\n" + VI_1);
    Plan moved = plan("\n\nglobal_defs {\n lvs_sync_daemon eth1\n}\n" + VI_1);
    Plan otherId = plan("global_defs {\n lvs_sync_daemon eth1 VI_1\n}\n" + VI_1);
    Plan otherIf = plan("global_defs {\n lvs_sync_daemon eth2 VI_1\n}\n" + VI_1);
    assertThat(both.changesSince(none)).containsExactly("lvs_sync_daemon added");
    assertThat(none.changesSince(both)).containsExactly("lvs_sync_daemon removed");
    assertThat(moved.sync().orElseThrow().where()).isNotEqualTo(both.sync().orElseThrow().where());
    assertThat(moved.changesSince(both)).isEmpty();
    assertThat(moved.sync().orElseThrow().sameAs(both.sync().orElseThrow())).isTrue();
    // Same daemons (id 0 given), another instance followed: not restarted, only followed.
    assertThat(following.changesSince(both)).containsExactly("lvs_sync_daemon follows VI_1");
    assertThat(following.sync().orElseThrow().sameDaemons(both.sync().orElseThrow())).isTrue();
    assertThat(both.changesSince(following))
        .containsExactly("lvs_sync_daemon follows no VRRP instance (master and backup)");
    // The id defaults to VI_1's router id (51): another daemon.
    assertThat(otherId.changesSince(following))
        .containsExactly("lvs_sync_daemon changed (daemons restarted)");
    assertThat(otherIf.changesSince(otherId))
        .containsExactly("lvs_sync_daemon changed (daemons restarted)");
  }
}
