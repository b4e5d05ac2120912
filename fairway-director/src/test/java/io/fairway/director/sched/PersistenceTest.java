package io.fairway.director.sched;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** persistence_timeout / persistence_granularity with the kernel's template expiry. */
class PersistenceTest {
  private final AtomicLong now = new AtomicLong(1_000_000);
  private SchedService vs;

  @BeforeEach
  void setUp() {
    vs = service(Persistence.seconds(300));
  }

  private SchedService service(Persistence p) {
    SchedService s = new SchedService(Schedulers.create("rr", List.of()), p, now::get);
    s.add(DestSpec.of("10.0.0.1", 80, 1));
    s.add(DestSpec.of("10.0.0.2", 80, 1));
    s.add(DestSpec.of("10.0.0.3", 80, 1));
    return s;
  }

  private static Flow from(String ip, int port) {
    return Flow.fromClient(AddressFold.parse(ip), port);
  }

  @Test
  void aClientKeepsItsServerWhileRoundRobinMovesOthersOn() {
    SchedDest first = vs.open(from("192.0.2.1", 1000)).dest();
    SchedDest other = vs.open(from("192.0.2.2", 1000)).dest();
    assertThat(other).isNotSameAs(first);
    for (int i = 0; i < 5; i++)
      assertThat(vs.open(from("192.0.2.1", 1001 + i)).dest()).isSameAs(first);
    assertThat(first.persistConns()).as("one template, counted apart").isEqualTo(1);
    assertThat(first.totalConns()).as("templates are not connections").isEqualTo(6);
  }

  @Test
  void theTemplateExpiresOneTimeoutAfterItsLastUseWhenNoConnectionIsLeft() {
    Connection c = vs.open(from("192.0.2.1", 1000));
    SchedDest first = c.dest();
    c.expire();
    now.addAndGet(299_000);
    assertThat(vs.pick(from("192.0.2.1", 1))).isSameAs(first);
    now.addAndGet(2_000);
    assertThat(vs.expireTemplates()).isEqualTo(1);
    assertThat(first.persistConns()).isZero();
  }

  @Test
  void whileConnectionsLiveTheTemplateIsReArmedInsteadOfExpiring() {
    Connection c = vs.open(from("192.0.2.1", 1000));
    SchedDest first = c.dest();
    now.addAndGet(700_000); // two timer periods with the connection still open
    assertThat(vs.pick(from("192.0.2.1", 1))).isSameAs(first);
    c.expire(); // released at t0+700 s; the timer ticks at t0+900 s
    now.addAndGet(150_000);
    assertThat(vs.pick(from("192.0.2.1", 1))).as("t0+850 s: before the next tick").isSameAs(first);
    now.addAndGet(100_000);
    assertThat(vs.expireTemplates()).as("t0+950 s: gone").isEqualTo(1);
  }

  @Test
  void quiescingKeepsStickyClientsButRemovalReschedulesThem() {
    SchedDest first = vs.open(from("192.0.2.1", 1000)).dest();
    vs.edit(first.spec().withWeight(0));
    assertThat(vs.open(from("192.0.2.1", 1001)).dest())
        .as("weight 0: existing clients continue")
        .isSameAs(first);
    vs.remove(first.address(), first.port());
    SchedDest next = vs.open(from("192.0.2.1", 1002)).dest();
    assertThat(next).isNotSameAs(first);
    assertThat(vs.open(from("192.0.2.1", 1003)).dest()).isSameAs(next);
  }

  @Test
  void expireQuiescentTemplateMovesStickyClientsOffAWeightZeroServer() {
    vs = service(Persistence.seconds(300).withExpireQuiescentTemplate(true));
    SchedDest first = vs.open(from("192.0.2.1", 1000)).dest();
    vs.edit(first.spec().withWeight(0));
    assertThat(vs.open(from("192.0.2.1", 1001)).dest()).isNotSameAs(first);
  }

  @Test
  void anOverloadedServerKeepsItsStickyClientsAsInTheKernel() {
    SchedService s =
        new SchedService(Schedulers.create("rr", List.of()), Persistence.seconds(60), now::get);
    s.add(DestSpec.of("10.0.0.2", 80, 1));
    SchedDest limited =
        s.add(DestSpec.of("10.0.0.1", 80, 1).withThresholds(1, 0)); // head of the kernel list
    assertThat(s.open(from("192.0.2.1", 1)).dest()).isSameAs(limited);
    assertThat(limited.overloaded()).isTrue();
    assertThat(s.open(from("192.0.2.1", 2)).dest())
        .as("the template wins over OVERLOAD")
        .isSameAs(limited);
    assertThat(s.open(from("192.0.2.2", 1)).dest()).as("new clients avoid it").isNotSameAs(limited);
  }

  @Test
  void granularityGroupsClientsByNetwork() {
    vs = service(Persistence.seconds(300).withIpv4Mask(0xffffff00).withIpv6Prefix(64));
    SchedDest a = vs.open(from("192.0.2.1", 1)).dest();
    assertThat(vs.open(from("192.0.2.200", 1)).dest()).isSameAs(a);
    assertThat(vs.open(from("192.0.3.1", 1)).dest()).isNotSameAs(a);
    SchedDest b = vs.open(from("2001:db8:1:2::1", 1)).dest();
    assertThat(vs.open(from("2001:db8:1:2:ffff::9", 1)).dest()).isSameAs(b);
    assertThat(vs.templateCount()).isEqualTo(3);
  }

  @Test
  void theSorryServerGetsNoTemplateSoClientsReturnToThePool() {
    SchedService s =
        new SchedService(Schedulers.create("rr", List.of()), Persistence.seconds(60), now::get);
    s.add(DestSpec.of("10.0.0.1", 80, 0));
    SchedDest sorry = s.setSorryServer(DestSpec.of("10.0.0.9", 80, 1));
    assertThat(s.open(from("192.0.2.1", 1)).dest()).isSameAs(sorry);
    assertThat(s.templateCount()).isZero();
    s.edit(DestSpec.of("10.0.0.1", 80, 1));
    assertThat(s.open(from("192.0.2.1", 2)).dest()).isNotSameAs(sorry);
  }
}
