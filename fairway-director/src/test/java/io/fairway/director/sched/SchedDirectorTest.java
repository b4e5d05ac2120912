package io.fairway.director.sched;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fairway.director.Backend;
import io.fairway.director.Member;
import io.fairway.director.Request;
import java.net.InetSocketAddress;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The kernel schedulers through the common Director entry point. */
class SchedDirectorTest {

  private static Request from(String ip, int port) {
    return Request.ofFlow(new InetSocketAddress(AddressFold.parse(ip), port), null);
  }

  @Test
  void choosesTheSameServerAsTheServiceAndHandsBackTheCallersBackend() {
    SchedDirector d = new SchedDirector("vs", Schedulers.create("mh", List.of()));
    SchedServer a =
        new SchedServer("a", new InetSocketAddress(AddressFold.parse("10.16.1.1"), 80), 0, 0);
    Backend b = Backend.named("10.16.1.2:80");
    d.add(Member.of(a, 1));
    d.add(Member.of(b, 3));
    SchedService reference =
        Schedulers.service(
            "mh",
            List.of(),
            List.of(DestSpec.of("10.16.1.1", 80, 1), DestSpec.of("10.16.1.2", 80, 3)));
    for (int i = 0; i < 200; i++) {
      String ip = "10.17." + (i / 200) + "." + (i % 200 + 1);
      Backend got = d.pick(from(ip, 1000));
      SchedDest want = reference.pick(Flow.fromClient(AddressFold.parse(ip), 1000));
      assertThat(got)
          .isSameAs(
              want.port() == 80 && want.address().getHostAddress().equals("10.16.1.1") ? a : b);
    }
  }

  @Test
  void aDownMemberIsRemovedAndWeightZeroQuiesces() {
    SchedDirector d = new SchedDirector("vs", Schedulers.create("rr", List.of()));
    d.add(Member.of(Backend.named("10.0.0.1:80")));
    d.add(Member.of(Backend.named("10.0.0.2:80")));
    d.setHealthy("10.0.0.1:80", false);
    assertThat(d.service().dests()).hasSize(1);
    for (int i = 0; i < 4; i++)
      assertThat(d.pick(from("192.0.2.1", i)).name()).isEqualTo("10.0.0.2:80");
    d.setWeight("10.0.0.2:80", 0);
    assertThat(d.pick(from("192.0.2.1", 9))).isNull();
    d.setSorryServer(SchedServer.parse("10.0.0.9:80"));
    assertThat(d.pick(from("192.0.2.1", 9)).name()).isEqualTo("10.0.0.9:80");
    assertThat(d.healthy()).isTrue();
  }

  @Test
  void countsSurviveWeightChangesAndConnectionsAreAccounted() {
    SchedDirector d = new SchedDirector("vs", Schedulers.create("lc", List.of()));
    d.add(Member.of(Backend.named("10.0.0.1:80")));
    Connection c = d.open(from("192.0.2.1", 1));
    d.setWeight("10.0.0.1:80", 5);
    assertThat(d.service().dests().get(0).activeConns()).isEqualTo(1);
    c.expire();
    assertThat(d.service().dests().get(0).activeConns()).isZero();
  }

  @Test
  void badMembersAreRefusedWithTheReason() {
    SchedDirector d = new SchedDirector("vs", Schedulers.create("wlc", List.of()));
    assertThatThrownBy(() -> d.add(Member.of(Backend.named("web1"))))
        .hasMessage("lb_algo wlc needs real server addresses: 'web1' is not IP:PORT");
    assertThatThrownBy(() -> d.add(Member.of(Backend.named("10.0.0.1:80"), 1.5)))
        .hasMessage("weight of 10.0.0.1:80 must be a whole number for lb_algo wlc, got 1.5");
    assertThat(d.members()).isEmpty();
  }
}
