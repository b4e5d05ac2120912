package io.fairway.director.sched;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The kernel's OVERLOAD rules (ip_vs_conn.c bind/unbind, ip_vs_ctl.c update). */
class ThresholdsTest {

  /** rr over one server, 10.0.0.1:80 weight 1, with these thresholds. */
  private static SchedService oneServer(int upper, int lower) {
    return Schedulers.service(
        "rr", List.of(), List.of(DestSpec.of("10.0.0.1", 80, 1).withThresholds(upper, lower)));
  }

  private static Flow client(int i) {
    return Flow.fromClient(AddressFold.parse("192.0.2." + (i % 250 + 1)), 1024 + i);
  }

  @Test
  void overloadIsSetWhenTheCountReachesTheUpperThresholdAndClearedBelowTheLowerOne() {
    SchedService vs = oneServer(4, 2);
    SchedDest d = vs.dests().get(0);
    List<Connection> conns = new ArrayList<>();
    for (int i = 0; i < 3; i++) conns.add(vs.open(client(i)));
    assertThat(d.overloaded()).isFalse();
    conns.add(vs.open(client(3)));
    assertThat(d.overloaded()).as("4 >= uthreshold 4").isTrue();
    assertThat(vs.open(client(4))).as("no sorry server: refused").isNull();
    conns.remove(0).expire();
    assertThat(d.overloaded()).as("3 is not below lthreshold 2").isTrue();
    conns.remove(0).expire();
    assertThat(d.overloaded()).as("2 is not below 2").isTrue();
    conns.remove(0).expire();
    assertThat(d.overloaded()).as("1 < 2").isFalse();
    assertThat(vs.open(client(5))).isNotNull();
  }

  @Test
  void maxConnsCountsLiveConnectionsOnlyAndLetsTheNextInWhenOneCloses() {
    SchedService vs =
        Schedulers.service(
            "wlc",
            List.of(),
            List.of(
                DestSpec.of("10.0.0.1", 80, 1).withMaxConns(2),
                DestSpec.of("10.0.0.2", 80, 1).withMaxConns(1)));
    SchedDest a = vs.dests().get(0);
    SchedDest b = vs.dests().get(1);
    List<Connection> conns = new ArrayList<>();
    for (int i = 0; i < 3; i++) conns.add(vs.open(client(i)));
    assertThat(conns).extracting(Connection::dest).containsExactlyInAnyOrder(a, a, b);
    assertThat(a.overloaded()).isTrue();
    assertThat(b.overloaded()).isTrue();
    assertThat(vs.open(client(3))).as("every live slot taken, no sorry server").isNull();
    Connection onB = conns.stream().filter(c -> b.equals(c.dest())).findFirst().orElseThrow();
    onB.closing(); // closed, not yet expired: inactive, which uthreshold would still count
    assertThat(b.inactiveConns()).isEqualTo(1);
    assertThat(b.overloaded()).isFalse();
    assertThat(vs.open(client(4)).dest()).isSameAs(b);
    // The kernel's spec of it carries the limit, so a reload's edit keeps or moves it.
    assertThat(b.spec().maxConns()).isEqualTo(1);
    vs.edit(b.spec().withMaxConns(0));
    assertThat(b.overloaded()).as("limit removed").isFalse();
  }

  @Test
  void withoutLowerThresholdTheFlagClearsBelowThreeQuarters() {
    SchedService vs = oneServer(8, 0);
    SchedDest d = vs.dests().get(0);
    List<Connection> conns = new ArrayList<>();
    for (int i = 0; i < 8; i++) conns.add(vs.open(client(i)));
    assertThat(d.overloaded()).isTrue();
    conns.remove(0).expire(); // 7*4=28 < 24? no
    conns.remove(0).expire(); // 6*4=24 < 24? no
    assertThat(d.overloaded()).isTrue();
    conns.remove(0).expire(); // 5*4=20 < 24
    assertThat(d.overloaded()).isFalse();
  }

  @Test
  void batchExpiryCountsAndClearsOverloadAsSingleExpiriesDo() {
    SchedService vs = oneServer(4, 2);
    SchedDest d = vs.dests().get(0);
    List<Connection> closed = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      Connection c = vs.open(client(i));
      c.closing();
      closed.add(c);
    }
    assertThat(d.inactiveConns()).isEqualTo(4);
    assertThat(d.overloaded()).isTrue();
    for (Connection c : closed.subList(0, 2)) {
      assertThat(c.detachForBatchExpiry()).isTrue();
      assertThat(c.detachForBatchExpiry()).as("once").isFalse();
      c.expire(); // detached: its expiry is the batch's, this must not count again
    }
    assertThat(d.inactiveConns()).as("detaching does not expire yet").isEqualTo(4);
    d.expireInactive(2);
    assertThat(d.inactiveConns()).isEqualTo(2);
    assertThat(d.overloaded()).as("2 is not below lthreshold 2").isTrue();
    closed.get(2).detachForBatchExpiry();
    d.expireInactive(1);
    assertThat(d.overloaded()).as("1 < 2").isFalse();
  }

  @Test
  void onlyInactiveConnectionsWithoutATemplateCanBeExpiredInABatch() {
    SchedService vs = Schedulers.service("rr", List.of(), List.of(DestSpec.of("10.0.0.1", 80, 1)));
    Connection active = vs.open(client(1));
    assertThat(active.detachForBatchExpiry()).as("still active").isFalse();
    SchedService sticky =
        new SchedService(Schedulers.create("rr", List.of()), Persistence.seconds(300), () -> 0L);
    sticky.add(DestSpec.of("10.0.0.1", 80, 1));
    Connection withTemplate = sticky.open(client(2));
    withTemplate.closing();
    assertThat(withTemplate.detachForBatchExpiry())
        .as("its template is released per connection")
        .isFalse();
  }

  @Test
  void inactiveConnectionsCountTowardsTheThresholdAndClosingMovesThem() {
    SchedService vs = oneServer(2, 0);
    SchedDest d = vs.dests().get(0);
    Connection a = vs.open(client(1));
    a.closing();
    assertThat(d.activeConns()).isZero();
    assertThat(d.inactiveConns()).isEqualTo(1);
    vs.open(client(2));
    assertThat(d.overloaded()).isTrue();
    a.expire();
    a.expire(); // idempotent
    assertThat(d.totalConns()).isEqualTo(1);
    assertThat(d.overloaded()).as("1*4 < 2*3").isFalse();
  }

  @Test
  void
      raisingOrRemovingTheUpperThresholdClearsTheFlagAtOnceButLoweringItWaitsForTheNextConnection() {
    SchedService vs = oneServer(2, 0);
    SchedDest d = vs.dests().get(0);
    vs.open(client(1));
    vs.open(client(2));
    assertThat(d.overloaded()).isTrue();
    vs.edit(DestSpec.of("10.0.0.1", 80, 1).withThresholds(3, 0));
    assertThat(d.overloaded()).isFalse();
    vs.edit(DestSpec.of("10.0.0.1", 80, 1).withThresholds(1, 0));
    assertThat(d.overloaded()).as("lowering does not set it").isFalse();
    vs.open(client(3));
    assertThat(d.overloaded()).isTrue();
    vs.edit(DestSpec.of("10.0.0.1", 80, 1));
    assertThat(d.overloaded()).as("uthreshold 0 clears").isFalse();
  }

  @Test
  void invertedOrNegativeThresholdsAreConfigurationErrors() {
    assertThatThrownBy(() -> DestSpec.of("10.0.0.1", 80, 1).withThresholds(10, 20))
        .hasMessage("lthreshold 20 is greater than uthreshold 10");
    assertThatThrownBy(() -> DestSpec.of("10.0.0.1", 80, 1).withThresholds(0, 5))
        .hasMessage("lthreshold 5 is greater than uthreshold 0 (set uthreshold too)");
    assertThatThrownBy(() -> DestSpec.of("10.0.0.1", 80, 1).withThresholds(-1, 0))
        .hasMessageContaining("uthreshold -1 is negative");
    assertThatThrownBy(() -> DestSpec.of("10.0.0.1", 80, -1)).hasMessageContaining("weight -1");
  }

  @Test
  void aServerRemovedAndAddedBackStillCountsTheConnectionsThatOutlivedItsRemoval() {
    SchedService vs =
        Schedulers.service(
            "rr",
            List.of(),
            List.of(
                DestSpec.of("10.0.0.1", 80, 1).withThresholds(3, 0),
                DestSpec.of("10.0.0.2", 80, 1)));
    SchedDest a = vs.dests().get(0);
    List<Connection> conns = new ArrayList<>();
    for (int i = 0; i < 4; i++) conns.add(vs.open(client(i))); // two each
    vs.remove(a.address(), a.port()); // health check failed: removed
    SchedDest back = vs.add(DestSpec.of("10.0.0.1", 80, 1).withThresholds(3, 0)); // and back
    assertThat(back).as("revived, like the kernel's trash").isSameAs(a);
    assertThat(back.activeConns()).isEqualTo(2);
    vs.open(client(10));
    vs.open(client(11));
    assertThat(back.totalConns()).isEqualTo(3);
    assertThat(back.overloaded()).isTrue();
    conns.forEach(Connection::expire);
    assertThat(back.totalConns()).isEqualTo(1);
  }
}
