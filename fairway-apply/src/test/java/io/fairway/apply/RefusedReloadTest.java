package io.fairway.apply;

import static io.fairway.apply.Fixtures.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fairway.table.Dest;
import io.fairway.table.ForwardingMethod;
import io.fairway.table.TableException;
import io.fairway.table.TableOp;
import io.fairway.testkit.RecordingTable;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * {@link Applier#replaceOrRestore}: a reload the table refuses leaves every piece of the running
 * state as it was, including what only moves with time or with the table's counters (a slow start
 * ramp, an overflowing sorry server), so the drift repair that follows the refusal writes nothing.
 */
class RefusedReloadTest {
  final RecordingTable table = new RecordingTable();
  final AtomicLong clock = new AtomicLong(1_000_000_000L);

  /** The reload adds an inhibit server at 10.16.1.9, whose add the table refuses. */
  static final String REFUSED = "10.16.1.9";

  void refuseTheNewServer() {
    table.refuse = op -> op instanceof TableOp.AddDest a && a.dest().key().equals(key(REFUSED));
  }

  @Test
  void aRefusedReloadDuringASlowStartRampKeepsTheRamp() throws Exception {
    ServerBinding a = rs("a", "10.16.1.1", 10);
    ServerBinding b =
        new ServerBinding("b", Dest.of(ip("10.16.1.2"), 80, 10), false, 10, Duration.ofSeconds(10));
    Applier applier = new Applier(table, config(web(a, b)), clock::get);
    applier.init("web", up("a"));
    applier.setAlive("web", "b", true);
    clock.addAndGet(Duration.ofSeconds(3).toNanos());
    applier.stepSlowStarts();
    assertThat(table.weight(WEB, key("10.16.1.2"))).as("step 4 of 10").isEqualTo(4);

    refuseTheNewServer();
    assertThatThrownBy(() -> applier.replaceOrRestore(config(web(a, b, inhibit("c", REFUSED, 1)))))
        .isInstanceOf(TableException.class);

    assertThat(table.weight(WEB, key("10.16.1.2")))
        .as("the restore does not jump the ramp to full weight")
        .isEqualTo(4);
    assertThat(applier.rampsActive()).isTrue();
    assertThat(applier.rampWeight("web", "b")).isEqualTo(4);
    table.refuse = op -> false;
    assertThat(applier.repairDrift()).isEmpty();

    clock.addAndGet(Duration.ofSeconds(2).toNanos());
    applier.stepSlowStarts();
    assertThat(table.weight(WEB, key("10.16.1.2"))).as("the ramp goes on").isEqualTo(6);
  }

  @Test
  void aRefusedReloadDuringAnOverflowKeepsTheSorryServerServingTheOverflow() throws Exception {
    ServiceBinding vs = OverflowTest.pool(true, false);
    Applier applier = new Applier(table, config(vs));
    applier.init("web", up("a", "b", "c"));
    table.load(key("10.16.1.1"), 4, 0);
    table.load(key("10.16.1.2"), 3, 1);
    table.load(key("10.16.1.3"), 4, 0);
    assertThat(new OverflowWatch(applier).poll()).hasSize(1);
    assertThat(table.weight(WEB, SORRY.key())).isEqualTo(SORRY.weight());

    refuseTheNewServer();
    ServerBinding c =
        new ServerBinding(
            "d", new Dest(ip(REFUSED), 80, ForwardingMethod.MASQ, 1, 4, 0, null), true, 1);
    ServiceBinding grown =
        web(vs.servers().get("a"), vs.servers().get("b"), vs.servers().get("c"), c)
            .withSorryServer(SORRY, false)
            .withOverflow(true);
    assertThatThrownBy(() -> applier.replaceOrRestore(config(grown)))
        .isInstanceOf(TableException.class);

    assertThat(table.weight(WEB, SORRY.key()))
        .as("the restore does not lower the overflowing sorry server to 0")
        .isEqualTo(SORRY.weight());
    assertThat(applier.overflowing("web")).containsExactly(WEB);
    table.refuse = op -> false;
    assertThat(applier.repairDrift()).isEmpty();
  }
}
