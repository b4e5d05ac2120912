package io.fairway.apply;

import static io.fairway.apply.Fixtures.WEB;
import static io.fairway.apply.Fixtures.config;
import static io.fairway.apply.Fixtures.ip;
import static io.fairway.apply.Fixtures.rs;
import static io.fairway.apply.Fixtures.up;
import static io.fairway.apply.Fixtures.web;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fairway.config.model.GlobalDefs.FlushOnStop;
import io.fairway.table.Protocol;
import io.fairway.table.Service;
import io.fairway.table.ServiceKey;
import io.fairway.table.Table;
import io.fairway.table.TableException;
import io.fairway.table.TableOp;
import io.fairway.table.TimeoutControl;
import io.fairway.table.Timeouts;
import io.fairway.testkit.FaultyTable;
import io.fairway.testkit.RecordingTable;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** lvs_timeouts, lvs_flush and lvs_flush_on_stop, in keepalived 2.2.7's order and rules. */
class LvsHousekeepingTest {
  static final ServiceKey FOREIGN = ServiceKey.of(Protocol.TCP, ip("10.16.7.7"), 80);
  static final Timeouts NONE = new Timeouts(0, 0, 0);

  /**
   * A RecordingTable with the kernel's global timeouts, starting from non-default ones; without
   * {@code permitted}, flush and the timeouts fail as for a process without CAP_NET_ADMIN.
   */
  static final class KernelLike extends FaultyTable implements TimeoutControl {
    final RecordingTable t;
    Timeouts timeouts = new Timeouts(800, 100, 200);
    final List<Timeouts> sets = new ArrayList<>();
    boolean permitted = true;

    KernelLike() {
      this(new RecordingTable());
    }

    private KernelLike(RecordingTable t) {
      super(t);
      this.t = t;
    }

    @Override
    protected void fault(TableOp op) throws TableException {
      if (op instanceof TableOp.Flush) {
        check("flush");
      }
    }

    @Override
    public Timeouts timeouts() throws TableException {
      check("IPVS timeouts");
      return timeouts;
    }

    @Override
    public void setTimeouts(Timeouts x) throws TableException {
      check("IPVS set timeouts");
      sets.add(x);
      timeouts = x.over(timeouts);
    }

    private void check(String what) throws TableException {
      if (!permitted) {
        throw new TableException(
            TableException.Reason.PERMISSION,
            1,
            what + ": permission denied: managing IPVS needs CAP_NET_ADMIN (EPERM)");
      }
    }
  }

  private static LvsGlobals globals(boolean flush, FlushOnStop onStop, Timeouts t) {
    return new LvsGlobals(flush, onStop, t);
  }

  private static Applier running(Table table) throws Exception {
    Applier a = new Applier(table, config(web(rs("a", "10.16.1.1", 1), rs("b", "10.16.1.2", 1))));
    a.init("web", up("a", "b"));
    return a;
  }

  @Test
  void startSetsTheGivenTimeoutsKeepsTheOthersThenFlushesBeforeTheFirstService() throws Exception {
    KernelLike k = new KernelLike();
    k.addService(Service.of(FOREIGN, "rr")); // left over from a previous run
    LvsHousekeeping h = new LvsHousekeeping(k);
    h.start(globals(true, FlushOnStop.NONE, new Timeouts(1000, 0, 400)));
    assertThat(k.timeouts).isEqualTo(new Timeouts(1000, 100, 400));
    // libipvs sends all three: the given ones and the originals for the rest
    assertThat(k.sets).containsExactly(new Timeouts(1000, 100, 400));
    assertThat(k.t.services).isEmpty();
    assertThat(k.t.ops)
        .containsExactly(new TableOp.AddService(Service.of(FOREIGN, "rr")), new TableOp.Flush());
  }

  @Test
  void aReloadSendsTheNewTimeoutsAndPutsBackTheOnesNoLongerGiven() throws Exception {
    KernelLike k = new KernelLike();
    LvsHousekeeping h = new LvsHousekeeping(k);
    h.start(globals(false, FlushOnStop.NONE, new Timeouts(1000, 0, 400)));
    h.reload(globals(false, FlushOnStop.NONE, new Timeouts(0, 50, 0)));
    assertThat(k.timeouts)
        .as("tcp and udp back to what they were before Fairway")
        .isEqualTo(new Timeouts(800, 50, 200));
    h.reload(globals(false, FlushOnStop.NONE, NONE));
    assertThat(k.timeouts).isEqualTo(new Timeouts(800, 100, 200));
    h.stop(null);
    assertThat(k.timeouts).isEqualTo(new Timeouts(800, 100, 200));
  }

  @Test
  void withoutLvsTimeoutsTheTimeoutsAreNeverTouched() throws Exception {
    KernelLike k = new KernelLike();
    LvsHousekeeping h = new LvsHousekeeping(k);
    h.start(globals(false, FlushOnStop.NONE, NONE));
    h.reload(globals(false, FlushOnStop.NONE, NONE));
    h.stop(running(k));
    assertThat(k.sets).isEmpty();
    assertThat(k.t.ops).doesNotContain(new TableOp.Flush());
  }

  @Test
  void shutdownRestoresTheOriginalTimeoutsEvenWhenTheTableIsLeftAlone() throws Exception {
    KernelLike k = new KernelLike();
    LvsHousekeeping h = new LvsHousekeeping(k);
    h.start(globals(false, FlushOnStop.NONE, new Timeouts(30, 0, 0)));
    Applier a = running(k);
    h.detach(); // -I
    assertThat(k.timeouts).isEqualTo(new Timeouts(800, 100, 200));
    assertThat(k.t.services).containsOnlyKeys(WEB);
    assertThat(a.present("web", "a")).isTrue();
  }

  @Test
  void byDefaultShutdownRemovesEachServerThenTheServiceAndLeavesOthersAlone() throws Exception {
    KernelLike k = new KernelLike();
    LvsHousekeeping h = new LvsHousekeeping(k);
    h.start(globals(false, FlushOnStop.NONE, NONE));
    Applier a = running(k);
    k.addService(Service.of(FOREIGN, "rr"));
    k.t.drain();
    h.stop(a);
    assertThat(k.t.ops)
        .containsExactly(
            Fixtures.del("10.16.1.1"), Fixtures.del("10.16.1.2"), new TableOp.DelService(WEB));
    assertThat(k.t.services).containsOnlyKeys(FOREIGN);
  }

  @Test
  void flushOnStopVsDeletesTheServicesOnlyAndLeavesOthersAlone() throws Exception {
    KernelLike k = new KernelLike();
    LvsHousekeeping h = new LvsHousekeeping(k);
    h.start(globals(false, FlushOnStop.VS, NONE));
    Applier a = running(k);
    k.addService(Service.of(FOREIGN, "rr"));
    k.t.drain();
    h.stop(a);
    assertThat(k.t.ops).containsExactly(new TableOp.DelService(WEB));
    assertThat(k.t.services).containsOnlyKeys(FOREIGN);
    assertThat(a.present("web", "a")).isFalse();
  }

  @Test
  void flushOnStopFlushesTheWholeTableOthersIncluded() throws Exception {
    KernelLike k = new KernelLike();
    LvsHousekeeping h = new LvsHousekeeping(k);
    h.start(globals(false, FlushOnStop.FULL, NONE));
    Applier a = running(k);
    k.addService(Service.of(FOREIGN, "rr"));
    k.t.drain();
    h.stop(a);
    assertThat(k.t.ops).containsExactly(new TableOp.Flush());
    assertThat(k.t.services).isEmpty();
    k.addService(Service.of(FOREIGN, "rr"));
    h.stop(a); // close() after stop(): once is enough
    assertThat(k.t.services).containsOnlyKeys(FOREIGN);
  }

  @Test
  void flushOnStopWithoutVirtualServersFlushesNothingAsKeepalived() throws Exception {
    KernelLike k = new KernelLike();
    k.addService(Service.of(FOREIGN, "rr"));
    LvsHousekeeping h = new LvsHousekeeping(k);
    h.start(globals(false, FlushOnStop.FULL, NONE));
    h.stop(new Applier(k, config()));
    assertThat(k.t.services).containsOnlyKeys(FOREIGN);
  }

  @Test
  void onATableWithoutTimeoutsTheKernelKeywordsAreSkippedAndStopStillRemoves() throws Exception {
    RecordingTable userspace = new RecordingTable();
    userspace.addService(Service.of(FOREIGN, "rr"));
    LvsHousekeeping h = new LvsHousekeeping(userspace);
    h.start(globals(true, FlushOnStop.VS, new Timeouts(30, 0, 0)));
    assertThat(userspace.services).as("lvs_flush does not apply").containsOnlyKeys(FOREIGN);
    Applier a = running(userspace);
    h.stop(a);
    assertThat(userspace.services).containsOnlyKeys(FOREIGN);
  }

  @Test
  void aRefusalNamesTheKeyword() throws Exception {
    KernelLike k = new KernelLike();
    k.permitted = false;
    LvsHousekeeping h = new LvsHousekeeping(k);
    assertThatThrownBy(() -> h.start(globals(false, FlushOnStop.NONE, new Timeouts(30, 0, 0))))
        .isInstanceOf(TableException.class)
        .hasMessage(
            "lvs_timeouts: IPVS timeouts: permission denied: managing IPVS needs CAP_NET_ADMIN (EPERM)");
    assertThatThrownBy(() -> new LvsHousekeeping(k).start(globals(true, FlushOnStop.NONE, NONE)))
        .hasMessage(
            "lvs_flush: flush: permission denied: managing IPVS needs CAP_NET_ADMIN (EPERM)")
        .hasMessageNotContaining("\n");
  }
}
