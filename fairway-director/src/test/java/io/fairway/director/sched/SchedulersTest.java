package io.fairway.director.sched;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Names, flags, the --conns snapshot and the schedulers' selection rules on small hand-checked
 * cases.
 */
class SchedulersTest {

  private static final List<DestSpec> ABC =
      List.of(
          DestSpec.of("10.0.0.1", 80, 1).withName("a"),
          DestSpec.of("10.0.0.2", 80, 2).withName("b"),
          DestSpec.of("10.0.0.3", 80, 3).withName("c"));

  private static String pickWith(String sched, String conns) {
    SchedService vs = Schedulers.service(sched, List.of(), ABC);
    LoadSnapshot.parse(conns).applyTo(vs);
    SchedDest d = vs.pick(Flow.fromClient(AddressFold.parse("192.0.2.1"), 1));
    return d == null ? "none" : d.name();
  }

  @Test
  void unknownNamesAndMisplacedFlagsAreOneLineErrors() {
    assertThatThrownBy(() -> Schedulers.create("lblcx", List.of()))
        .hasMessageStartingWith(
            "unknown scheduler 'lblcx' (expected one of rr wrr lc wlc sh dh mh");
    assertThatThrownBy(() -> Schedulers.create("mh", List.of("sh-port")))
        .hasMessage("flag 'sh-port' needs lb_algo sh, not mh");
    assertThatThrownBy(() -> Schedulers.create("sh", List.of("hashed")))
        .hasMessageStartingWith("unknown scheduler flag 'hashed'");
    assertThatThrownBy(() -> Schedulers.create("rr", List.of(), new Schedulers.Options(4093, 125)))
        .hasMessage("hash_balance_factor applies to mh only, not 'rr'");
    assertThatThrownBy(() -> new Schedulers.Options(4000, 0))
        .hasMessageContaining("must be a prime");
    assertThat(Schedulers.create("WLC", List.of()).name()).isEqualTo("wlc");
    assertThat(Schedulers.normalizeFlags("sh", List.of("sh-fallback", "sh-port")))
        .containsExactly("flag-1", "flag-2");
  }

  @Test
  void leastConnectionRules() {
    // lc ignores weights; ties go to the first in the kernel's list (the last added).
    assertThat(pickWith("lc", "")).isEqualTo("c");
    assertThat(pickWith("lc", "c=1,b=1")).isEqualTo("a");
    // an active connection weighs 256 inactive ones
    assertThat(pickWith("lc", "a=1,b=0/255,c=0/256")).isEqualTo("b");
    // wlc: overhead/weight — a=1/1, b=2/2, c=4/3: b and a tie (1), b comes first in the kernel
    // list.
    assertThat(pickWith("wlc", "a=1,b=2,c=4")).isEqualTo("b");
    // sed counts (active+1)/weight: a=(0+1)/1, b=(1+1)/2, c=(3+1)/3 → a and b tie at 1; b first.
    assertThat(pickWith("sed", "a=0,b=1,c=3")).isEqualTo("b");
    // nq: an idle server wins outright, whatever its weight
    assertThat(pickWith("nq", "b=5,c=5")).isEqualTo("a");
    // fo: highest weight that is not overloaded; ovf: highest weight with active <= weight
    assertThat(pickWith("fo", "c=100")).isEqualTo("c");
    assertThat(pickWith("ovf", "c=4")).isEqualTo("b");
    assertThat(pickWith("ovf", "c=4,b=3,a=2")).isEqualTo("none");
  }

  @Test
  void connsSnapshotSetsTheOverloadFlagFromThresholds() {
    SchedService vs =
        Schedulers.service(
            "wlc",
            List.of(),
            List.of(
                DestSpec.of("10.0.0.1", 80, 1).withThresholds(10, 0).withName("a"),
                DestSpec.of("10.0.0.2", 80, 1).withThresholds(10, 0).withName("b")));
    vs.setSorryServer(DestSpec.of("10.0.0.9", 80, 1).withName("sorry"));
    LoadSnapshot.parse("a=10, b=9/1").applyTo(vs);
    assertThat(vs.pick(Flow.fromClient(AddressFold.parse("192.0.2.1"), 1)).name())
        .isEqualTo("sorry");
    LoadSnapshot.parse("a=10,b=9").applyTo(vs);
    assertThat(vs.pick(Flow.fromClient(AddressFold.parse("192.0.2.1"), 1)).name()).isEqualTo("b");
  }

  @Test
  void connsSnapshotErrorsNameTheItem() {
    SchedService vs = Schedulers.service("lc", List.of(), ABC);
    assertThatThrownBy(() -> LoadSnapshot.parse("a=1,zz").applyTo(vs))
        .hasMessage("--conns: 'zz' is not NAME=N or NAME=ACTIVE/INACTIVE");
    assertThatThrownBy(() -> LoadSnapshot.parse("a=x"))
        .hasMessage("--conns: 'a=x': 'x' is not a connection count >= 0");
    assertThatThrownBy(() -> LoadSnapshot.parse("a=1,a=2"))
        .hasMessage("--conns: 'a' is given twice");
    assertThatThrownBy(() -> LoadSnapshot.parse("q=1").applyTo(vs))
        .hasMessage("--conns: no real server named 'q' (known: a b c)");
  }

  @Test
  void keyLinesParseAsClientOrDestination() {
    assertThat(Flows.fromKeyLine("sh", "192.0.2.1:4000").clientPort()).isEqualTo(4000);
    assertThat(Flows.fromKeyLine("mh", "[2001:db8::1]:53").clientPort()).isEqualTo(53);
    assertThat(Flows.fromKeyLine("mh", "2001:db8::1").client().getHostAddress())
        .isEqualTo("2001:db8:0:0:0:0:0:1");
    assertThat(Flows.fromKeyLine("dh", "198.51.100.7").destination().getHostAddress())
        .isEqualTo("198.51.100.7");
    assertThatThrownBy(() -> Flows.fromKeyLine("sh", "example.com"))
        .hasMessage("client 'example.com' is not IP, IP:PORT or [IPv6]:PORT");
    assertThatThrownBy(() -> Flows.fromKeyLine("sh", "192.0.2.1:99999"))
        .hasMessage("client '192.0.2.1:99999': port '99999' is not 0..65535");
  }

  @Test
  void roundRobinCursorSurvivesMembershipChangesLikeTheKernelsListPointer() {
    SchedService vs = Schedulers.service("rr", List.of(), ABC);
    Flow f = Flow.fromClient(AddressFold.parse("192.0.2.1"), 1);
    // kernel list: c b a
    assertThat(vs.pick(f).name()).isEqualTo("c");
    assertThat(vs.pick(f).name()).isEqualTo("b");
    vs.remove(AddressFold.parse("10.0.0.2"), 80); // cursor was b: falls back to c
    assertThat(vs.pick(f).name()).isEqualTo("a");
    vs.add(DestSpec.of("10.0.0.4", 80, 1).withName("d")); // new head: d c a
    assertThat(vs.pick(f).name()).isEqualTo("d");
    assertThat(vs.pick(f).name()).isEqualTo("c");
  }
}
