package io.fairway.proxy.table;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.proxy.ProxyOptions;
import io.fairway.table.Dest;
import io.fairway.table.ForwardingMethod;
import io.fairway.table.Protocol;
import io.fairway.table.Service;
import io.fairway.table.ServiceKey;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code max_conns}: a real server takes at most that many live connections (L4) or requests
 * (HTTP), whichever scheduler or director picks, and a closed L4 connection frees its slot at once,
 * where {@code uthreshold} (the kernel's) goes on counting it until its inactive entry expires. The
 * schedulers cover both models the table runs: the kernel-scheduler model (rr, wlc, mh) and the
 * Varnish directors (round_robin, random).
 */
class MaxConnsTest {
  static final InetAddress LO = InetAddress.getLoopbackAddress();
  static final ServiceKey KEY = ServiceKey.of(Protocol.TCP, LO, 80);

  static Dest dest(int port, int uthreshold) {
    return new Dest(LO, port, ForwardingMethod.MASQ, 1, uthreshold, 0, null);
  }

  /** The plan's word for each port: {@code max_conns}. */
  static ListenerSpec spec(Map<Integer, Integer> maxConns) {
    Map<Dest, Integer> byDest = new LinkedHashMap<>();
    maxConns.forEach((port, max) -> byDest.put(dest(port, 0), max));
    return PlannedLimits.of(ListenerSpec.tcp(), byDest);
  }

  static ProxyService service(String scheduler, ListenerSpec spec, int... ports) {
    ProxyService vs =
        new ProxyService(
            Service.of(KEY, scheduler),
            spec,
            ProxyOptions.builder().build(),
            new ConnectionExpiry(0));
    for (int p : ports) {
      vs.addDest(dest(p, 0));
    }
    return vs;
  }

  /** A first pick from a client address of its own (mh hashes the address alone). */
  static Lease pick(ProxyService vs, int client) {
    byte[] a = {127, 1, (byte) (client >>> 8), (byte) client};
    try {
      return vs.select(new InetSocketAddress(InetAddress.getByAddress(a), 40000), null, Set.of());
    } catch (java.net.UnknownHostException e) {
      throw new AssertionError(e);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"rr", "wlc", "mh", "round_robin", "random"})
  void eachServerTakesItsMaxThenNobodyTakesMore(String scheduler) {
    ProxyService vs = service(scheduler, spec(Map.of(9001, 2, 9002, 3)), 9001, 9002);
    List<Lease> leases = new ArrayList<>();
    for (int i = 0; i < 200 && leases.size() < 5; i++) {
      Lease l = pick(vs, i);
      if (l != null) {
        leases.add(l);
      }
    }
    assertThat(leases).hasSize(5);
    assertThat(leases.stream().filter(l -> l.server.address.getPort() == 9001)).hasSize(2);
    assertThat(leases.stream().filter(l -> l.server.address.getPort() == 9002)).hasSize(3);
    for (int i = 0; i < 50; i++) {
      assertThat(pick(vs, 1000 + i)).as("a pick with every slot taken").isNull();
    }
    // Full, not gone: a first try waits for a slot instead of being refused.
    assertThat(vs.atCapacity()).isTrue();
  }

  @ParameterizedTest
  @ValueSource(strings = {"rr", "wlc", "round_robin"})
  void aClosedConnectionFreesItsSlotAtOnce(String scheduler) {
    ProxyService vs = service(scheduler, spec(Map.of(9001, 1)), 9001);
    Lease first = pick(vs, 1);
    assertThat(first).isNotNull();
    assertThat(pick(vs, 2)).isNull();
    first.close(); // an L4 connection: inactive from now on, for a minute
    Lease next = pick(vs, 3);
    assertThat(next).isNotNull();
    assertThat(next.server.address.getPort()).isEqualTo(9001);
  }

  @ParameterizedTest
  @ValueSource(strings = {"rr", "round_robin"})
  void uthresholdStillCountsTheClosedConnectionUntilItExpires(String scheduler) {
    ProxyService vs = service(scheduler, ListenerSpec.tcp());
    vs.addDest(dest(9001, 1));
    Lease first = pick(vs, 1);
    assertThat(first).isNotNull();
    first.close();
    assertThat(pick(vs, 2)).as("the kernel's rule: inactive connections count").isNull();
  }

  @ParameterizedTest
  @ValueSource(strings = {"rr", "round_robin"})
  void anHttpRequestHoldsItsSlotUntilItEnds(String scheduler) {
    ProxyService vs = service(scheduler, spec(Map.of(9001, 1)), 9001);
    Lease request = pick(vs, 1);
    assertThat(pick(vs, 1)).isNull();
    request.closeRequest();
    assertThat(pick(vs, 1)).isNotNull();
  }

  @ParameterizedTest
  @ValueSource(strings = {"rr", "round_robin"})
  void aReloadMovesTheLimitWithoutTouchingLiveConnections(String scheduler) {
    ProxyService vs = service(scheduler, spec(Map.of(9001, 1)), 9001);
    Lease first = pick(vs, 1);
    assertThat(pick(vs, 2)).isNull();
    vs.setSpec(spec(Map.of(9001, 2)));
    Lease second = pick(vs, 3);
    assertThat(second).as("raised to 2").isNotNull();
    assertThat(pick(vs, 4)).isNull();
    vs.setSpec(spec(Map.of(9001, 0)));
    assertThat(pick(vs, 5)).as("no limit any more").isNotNull();
    vs.setSpec(spec(Map.of(9001, 1)));
    assertThat(pick(vs, 6)).as("lowered below the live count").isNull();
    assertThat(vs.pool().servers().get(0).active()).isEqualTo(3); // nobody was closed
    first.close();
    second.close();
    assertThat(pick(vs, 7)).as("still 1 live, the limit").isNull();
  }
}
