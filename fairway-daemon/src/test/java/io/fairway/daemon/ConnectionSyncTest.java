package io.fairway.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

import io.fairway.plan.Plan;
import io.fairway.table.SyncDaemon;
import io.fairway.table.SyncDaemon.Role;
import io.fairway.table.SyncDaemonControl;
import io.fairway.table.TableException;
import io.fairway.vrrp.state.State;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * The order of sync daemon requests, against a recording kernel that behaves as ip_vs_sync.c does
 * (EEXIST for a second daemon of a role, ESRCH for stopping one that does not run), in keepalived
 * 2.2.7's sequence for each VRRP state change.
 */
class ConnectionSyncTest {

  /** Records every request; refuses what the kernel refuses. */
  static final class Kernel implements SyncDaemonControl {
    final List<String> calls = new ArrayList<>();
    final Map<Role, SyncDaemon> running = new EnumMap<>(Role.class);
    @Nullable String refuseStart;

    @Override
    public synchronized List<SyncDaemon> syncDaemons() {
      return List.copyOf(running.values());
    }

    @Override
    public synchronized void startSyncDaemon(SyncDaemon d) throws TableException {
      calls.add("start " + d.role().word());
      if (refuseStart != null) {
        throw new TableException(TableException.Reason.NOT_FOUND, 19, refuseStart);
      }
      if (running.containsKey(d.role())) {
        throw new TableException(TableException.Reason.EXISTS, 17, "EEXIST");
      }
      running.put(d.role(), d);
    }

    @Override
    public synchronized void stopSyncDaemon(Role role) throws TableException {
      calls.add("stop " + role.word());
      if (running.remove(role) == null) {
        throw new TableException(TableException.Reason.NO_SERVICE, 3, "ESRCH");
      }
    }

    synchronized List<String> calls() {
      return List.copyOf(calls);
    }
  }

  private final Kernel k = new Kernel();

  private static Plan.Sync plan(Optional<String> instance) {
    return plan("k.conf:3", "eth0", 51, instance);
  }

  private static Plan.Sync plan(String where, String ifname, int id, Optional<String> instance) {
    return new Plan.Sync(where, ifname, id, 0, 0, 0, Optional.empty(), instance);
  }

  /** Started on {@link #k}, following {@code instance} (or no instance). */
  private ConnectionSync started(Optional<String> instance) throws TableException {
    ConnectionSync s = new ConnectionSync(plan(instance), k);
    s.start();
    return s;
  }

  @Test
  void withoutAnInstanceMasterAndBackupRunFromStartToClose() throws Exception {
    ConnectionSync s = started(Optional.empty());
    assertThat(k.running.keySet()).containsExactly(Role.MASTER, Role.BACKUP);
    s.instanceChanged("VI_1", State.BACKUP, State.MASTER); // no instance followed: nothing
    s.close();
    assertThat(k.calls())
        .containsExactly("start master", "start backup", "stop master", "stop backup");
    assertThat(k.running).isEmpty();
  }

  @Test
  void theDaemonsFollowTheInstanceAsKeepalivedDoes() throws Exception {
    ConnectionSync s = started(Optional.of("VI_1"));
    assertThat(k.running.keySet()).containsExactly(Role.BACKUP);
    s.instanceChanged("VI_1", State.INIT, State.BACKUP);
    s.instanceChanged("VI_2", State.BACKUP, State.MASTER); // another instance
    s.instanceChanged("VI_1", State.BACKUP, State.MASTER);
    await().atMost(Duration.ofSeconds(5)).until(() -> k.calls().size() == 3);
    assertThat(k.running.keySet()).containsExactly(Role.MASTER);
    assertThat(k.running.get(Role.MASTER)).isEqualTo(SyncDaemon.of(Role.MASTER, "eth0", 51));
    s.instanceChanged("VI_1", State.MASTER, State.FAULT);
    await().atMost(Duration.ofSeconds(5)).until(() -> k.calls().size() == 5);
    s.instanceChanged("VI_1", State.FAULT, State.BACKUP); // a backup keeps its backup daemon
    s.instanceChanged("VI_1", State.BACKUP, State.MASTER);
    s.instanceChanged("VI_1", State.MASTER, State.BACKUP);
    await().atMost(Duration.ofSeconds(5)).until(() -> k.calls().size() == 9);
    s.close();
    s.instanceChanged("VI_1", State.BACKUP, State.STOP); // shutdown: ignored, close stopped it
    assertThat(k.calls())
        .containsExactly(
            "start backup",
            "stop backup",
            "start master",
            "stop master",
            "start backup",
            "stop backup",
            "start master",
            "stop master",
            "start backup",
            "stop backup");
    assertThat(k.running).isEmpty();
  }

  @Test
  void whatAnEarlierRunLeftIsStoppedFirst() throws Exception {
    k.running.put(Role.MASTER, SyncDaemon.of(Role.MASTER, "eth9", 3));
    ConnectionSync s = new ConnectionSync(plan(Optional.of("VI_1")), k);
    s.start();
    assertThat(k.calls()).containsExactly("stop master", "start backup");
    s.close();
  }

  @Test
  void aRefusedStartNamesTheKeywordAndLeavesNothingRunning() {
    k.refuseStart = "IPVS start master sync daemon on eth0: no such interface (ENODEV)";
    ConnectionSync s = new ConnectionSync(plan(Optional.empty()), k);
    TableException e = catchThrowableOfType(TableException.class, s::start);
    assertThat(e.getMessage())
        .isEqualTo(
            "k.conf:3: lvs_sync_daemon: IPVS start master sync "
                + "daemon on eth0: no such interface (ENODEV)");
    assertThat(k.running).isEmpty();
  }

  @Test
  void statusReadsTheKernelAndSaysWhatWasRefused() throws Exception {
    ConnectionSync s = started(Optional.of("VI_1"));
    assertThat(s.status())
        .isEqualTo(
            "IPVS sync daemon: eth0 syncid 51, follows VI_1 (INIT): "
                + "wants backup\n  kernel: backup sync daemon (mcast=eth0, syncid=51)\n");
    // Someone stops it behind Fairway's back and the next start is refused.
    k.running.clear();
    k.refuseStart = "IPVS start master sync daemon on eth0: refused (EINVAL)";
    s.instanceChanged("VI_1", State.BACKUP, State.MASTER);
    await().atMost(Duration.ofSeconds(5)).until(() -> s.status().contains("refused"));
    assertThat(s.status())
        .isEqualTo(
            "IPVS sync daemon: eth0 syncid 51, follows VI_1 (MASTER): "
                + "wants master\n  kernel: no sync daemon running\n  last change refused: "
                + "lvs_sync_daemon: IPVS start master sync daemon on eth0: refused (EINVAL)\n");
    s.close();
  }

  // --- reload ----------------------------------------------------------------------------------

  /** Waits for the state changes submitted so far (the worker runs them in order). */
  private static void settle(ConnectionSync s) {
    assertThat(s.reload(s.plan())).isNull(); // the same plan: queued behind them, changes nothing
  }

  @Test
  void aReloadThatChangesTheDaemonsStopsTheOldAndStartsTheNewInTheInstancesRole() throws Exception {
    ConnectionSync s = started(Optional.of("VI_1"));
    s.instanceChanged("VI_1", State.BACKUP, State.MASTER);
    settle(s);
    assertThat(k.calls()).containsExactly("start backup", "stop backup", "start master");
    // Another interface and id, still VI_1 (master): the old master stops, the new one starts.
    assertThat(s.reload(plan("k.conf:4", "eth1", 52, Optional.of("VI_1")))).isNull();
    assertThat(k.calls().subList(3, k.calls().size()))
        .containsExactly("stop master", "start master");
    assertThat(k.running).containsOnlyKeys(Role.MASTER);
    assertThat(k.running.get(Role.MASTER)).isEqualTo(SyncDaemon.of(Role.MASTER, "eth1", 52));
    // Back to backup later: with the new settings.
    s.instanceChanged("VI_1", State.MASTER, State.BACKUP);
    settle(s);
    assertThat(k.running.get(Role.BACKUP)).isEqualTo(SyncDaemon.of(Role.BACKUP, "eth1", 52));
    assertThat(k.running).containsOnlyKeys(Role.BACKUP);
    s.close();
    assertThat(k.running).isEmpty();
  }

  @Test
  void maxlenPortTtlAndGroupAreChangesToo() throws Exception {
    ConnectionSync s = started(Optional.empty());
    Plan.Sync ttl =
        new Plan.Sync(
            "k.conf:3",
            "eth0",
            51,
            1400,
            8850,
            2,
            Optional.of(java.net.InetAddress.getByName("239.1.2.3")),
            Optional.empty());
    assertThat(s.reload(ttl)).isNull();
    assertThat(k.calls())
        .containsExactly(
            "start master",
            "start backup",
            "stop master",
            "stop backup",
            "start master",
            "start backup");
    assertThat(k.running.get(Role.BACKUP)).isEqualTo(ttl.daemon(Role.BACKUP));
    s.close();
  }

  @Test
  void theSameSettingsOnAnotherLineChangeNothing() throws Exception {
    ConnectionSync s = started(Optional.of("VI_1"));
    assertThat(s.reload(plan("k.conf:9", "eth0", 51, Optional.of("VI_1")))).isNull();
    assertThat(k.calls()).containsExactly("start backup");
    assertThat(s.plan().where()).isEqualTo("k.conf:9");
    s.close();
  }

  @Test
  void followingAnotherInstanceTakesItsRoleWithoutARestart() throws Exception {
    ConnectionSync s = started(Optional.of("VI_1"));
    s.instanceChanged("VI_1", State.INIT, State.BACKUP);
    s.instanceChanged("VI_2", State.BACKUP, State.MASTER); // not followed: only remembered
    settle(s);
    assertThat(k.calls()).containsExactly("start backup");
    assertThat(s.reload(plan("k.conf:3", "eth0", 51, Optional.of("VI_2")))).isNull();
    assertThat(k.calls()).containsExactly("start backup", "stop backup", "start master");
    assertThat(s.status()).startsWith("IPVS sync daemon: eth0 syncid 51, follows VI_2 (MASTER)");
    // No instance: master and backup both; then VI_1 (backup) again: the master one stops.
    assertThat(s.reload(plan("k.conf:3", "eth0", 51, Optional.empty()))).isNull();
    assertThat(k.running).containsOnlyKeys(Role.MASTER, Role.BACKUP);
    assertThat(s.reload(plan("k.conf:3", "eth0", 51, Optional.of("VI_1")))).isNull();
    assertThat(k.calls().subList(3, k.calls().size()))
        .containsExactly("start backup", "stop master");
    assertThat(k.running).containsOnlyKeys(Role.BACKUP);
    s.close();
  }

  @Test
  void daemonsAReloadAddsStartInTheRoleTheInstanceIsInNow() throws Exception {
    ConnectionSync s =
        new ConnectionSync(
            plan(Optional.of("VI_1")), k, Map.of("VI_1", State.MASTER, "VI_2", State.BACKUP));
    s.start();
    assertThat(k.calls()).containsExactly("start master");
    s.close();
    assertThat(k.calls()).containsExactly("start master", "stop master");
  }

  @Test
  void aChangeTheKernelRefusesIsReturnedAndShownUntilTheNextSucceeds() throws Exception {
    ConnectionSync s = started(Optional.of("VI_1"));
    k.refuseStart = "IPVS start backup sync daemon on eth9: no such interface (ENODEV)";
    assertThat(s.reload(plan("k.conf:3", "eth9", 51, Optional.of("VI_1"))))
        .isEqualTo(
            "lvs_sync_daemon: IPVS start backup sync daemon on eth9: no such interface (ENODEV)");
    assertThat(k.running).isEmpty(); // the old one was stopped first, as keepalived does
    assertThat(s.status())
        .isEqualTo(
            "IPVS sync daemon: eth9 syncid 51, follows VI_1 (INIT): wants backup\n"
                + "  kernel: no sync daemon running\n"
                + "  last change refused: lvs_sync_daemon: IPVS start backup sync daemon on eth9:"
                + " no such interface (ENODEV)\n");
    k.refuseStart = null;
    assertThat(s.reload(plan("k.conf:3", "eth0", 51, Optional.of("VI_1")))).isNull();
    assertThat(k.running).containsOnlyKeys(Role.BACKUP);
    assertThat(s.status()).doesNotContain("refused");
    s.close();
  }

  @Test
  void theSnapshotIsTyped() throws Exception {
    ConnectionSync s = started(Optional.of("VI_1"));
    s.instanceChanged("VI_1", State.BACKUP, State.MASTER);
    settle(s);
    SyncStatus st = s.snapshot();
    assertThat(st.active()).isTrue();
    assertThat(st.followedState()).contains(State.MASTER);
    assertThat(st.wants()).containsExactly(Role.MASTER);
    assertThat(st.kernel()).containsExactly(SyncDaemon.of(Role.MASTER, "eth0", 51));
    assertThat(st.lastError()).isEmpty();
    s.close();
  }
}
