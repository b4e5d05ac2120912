package io.fairway.director.sched;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fairway.director.Backend;
import io.fairway.director.Member;
import io.fairway.director.Request;
import io.fairway.director.varnish.RoundRobinDirector;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Overflow to the sorry server: what the kernel cannot do. */
class OverflowTest {

  private static Flow client(int i) {
    return Flow.fromClient(AddressFold.parse("198.51.100." + (i % 250 + 1)), 2000 + i);
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"rr", "wrr", "lc", "wlc", "sed", "nq", "fo", "ovf", "sh", "mh", "twos"})
  void everySchedulerOverflowsToTheSorryServerWhenAllAreFullAndComesBackWhenOneHasRoom(
      String sched) {
    SchedService vs =
        Schedulers.service(
            sched,
            List.of(),
            List.of(
                DestSpec.of("10.0.0.1", 80, 2).withThresholds(2, 1),
                DestSpec.of("10.0.0.2", 80, 2).withThresholds(2, 1),
                DestSpec.of("10.0.0.3", 80, 0)));
    SchedDest sorry = vs.setSorryServer(DestSpec.of("10.0.0.9", 80, 1));
    List<Connection> pool = new ArrayList<>();
    // Fill the pool; hash schedulers send a fixed client to a fixed server, so vary clients until
    // both are full.
    for (int i = 0;
        i < 500 && !(vs.dests().get(0).overloaded() && vs.dests().get(1).overloaded());
        i++) {
      Connection c = vs.open(client(i));
      if (!c.toSorryServer()) pool.add(c);
    }
    assertThat(vs.dests().get(0).overloaded()).isTrue();
    assertThat(vs.dests().get(1).overloaded()).isTrue();
    int before = sorry.totalConns();
    Connection overflow = vs.open(client(999));
    assertThat(overflow.dest()).isSameAs(sorry);
    assertThat(overflow.toSorryServer()).isTrue();
    assertThat(sorry.totalConns())
        .as("the sorry server's connections are counted")
        .isEqualTo(before + 1);
    assertThat(vs.dests().get(2).totalConns()).as("weight 0 stays quiesced").isZero();

    // Drain one server below lthreshold 1: the pool takes new connections again.
    for (Connection c : pool) if (vs.dests().get(0).equals(c.dest())) c.expire();
    assertThat(vs.dests().get(0).overloaded()).isFalse();
    boolean backToPool = false;
    for (int i = 0; i < 300 && !backToPool; i++) {
      Connection c = vs.open(client(1000 + i));
      backToPool = !c.toSorryServer();
      if (backToPool) assertThat(c.dest()).isSameAs(vs.dests().get(0));
    }
    assertThat(backToPool).isTrue();
  }

  @Test
  void withoutSorryServerTheConnectionIsRefusedAsInTheKernel() {
    SchedService vs = Schedulers.service("wlc", List.of(), List.of(DestSpec.of("10.0.0.1", 80, 0)));
    assertThat(vs.open(client(1))).isNull();
    assertThat(vs.pick(client(1))).isNull();
  }

  @Test
  void aSorryServerThatIsAlsoARealServerIsRefused() {
    SchedService vs = Schedulers.service("rr", List.of(), List.of(DestSpec.of("10.0.0.1", 80, 1)));
    assertThatThrownBy(() -> vs.setSorryServer(DestSpec.of("10.0.0.1", 80, 1)))
        .hasMessageStartingWith("sorry_server 10.0.0.1:80 is also a real_server");
    vs.setSorryServer(DestSpec.of("10.0.0.9", 80, 1));
    assertThatThrownBy(() -> vs.add(DestSpec.of("10.0.0.9", 80, 1)))
        .hasMessageStartingWith("sorry_server 10.0.0.9:80 is also a real_server");
  }

  @Test
  void sourceHashingWithoutFallbackOverflowsWhenTheClientsOwnServerIsFull() {
    SchedService vs =
        Schedulers.service(
            "sh",
            List.of(),
            List.of(
                DestSpec.of("10.0.0.1", 80, 1).withThresholds(1, 0),
                DestSpec.of("10.0.0.2", 80, 1)));
    SchedDest sorry = vs.setSorryServer(DestSpec.of("10.0.0.9", 80, 1));
    SchedDest limited = vs.dests().get(0);
    Flow f = null;
    for (int i = 0; f == null; i++) if (limited.equals(vs.pick(client(i)))) f = client(i);
    Flow other = null;
    for (int i = 0; other == null; i++) if (!limited.equals(vs.pick(client(i)))) other = client(i);
    assertThat(vs.open(f).dest()).isSameAs(limited);
    assertThat(vs.open(f).dest())
        .as("its own server is full: the kernel would drop it")
        .isSameAs(sorry);
    assertThat(vs.open(other).dest()).as("other clients are unaffected").isNotSameAs(sorry);
  }

  @Test
  void anyDirectorOverflowsWhenItHasNoServer() {
    RoundRobinDirector rr = new RoundRobinDirector("web");
    rr.add(Member.of(Backend.named("a")));
    OverflowDirector od = new OverflowDirector(rr, Backend.named("sorry"));
    assertThat(od.pick(Request.EMPTY).name()).isEqualTo("a");
    rr.setHealthy("a", false);
    assertThat(od.pick(Request.EMPTY).name()).isEqualTo("sorry");
    assertThat(od.overflowCount()).isEqualTo(1);
    rr.setHealthy("a", true);
    assertThat(od.pick(Request.EMPTY).name()).isEqualTo("a");
    assertThatThrownBy(() -> new OverflowDirector(rr, Backend.named("a")))
        .hasMessage("sorry_server a is also a member of web");
  }
}
