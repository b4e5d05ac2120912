package io.fairway.apply;

import io.fairway.table.Dest;
import io.fairway.table.DestKey;
import io.fairway.table.ForwardingMethod;
import io.fairway.table.Protocol;
import io.fairway.table.Service;
import io.fairway.table.ServiceKey;
import io.fairway.table.TableOp;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Small builders for sequencing tests. */
final class Fixtures {
  private Fixtures() {}

  static InetAddress ip(String s) {
    try {
      return InetAddress.getByName(s);
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException(e);
    }
  }

  static final ServiceKey WEB = ServiceKey.of(Protocol.TCP, ip("10.16.0.1"), 80);
  static final Service WEB_SVC = Service.of(WEB, "rr");
  static final Dest SORRY = Dest.of(ip("10.16.9.9"), 80, 1);

  static ServerBinding rs(String name, String addr, int weight) {
    return new ServerBinding(name, Dest.of(ip(addr), 80, weight), false, weight);
  }

  static ServerBinding inhibit(String name, String addr, int weight) {
    return new ServerBinding(name, Dest.of(ip(addr), 80, weight), true, weight);
  }

  static DestKey key(String addr) {
    return new DestKey(ip(addr), 80);
  }

  static ServiceBinding web(ServerBinding... servers) {
    return ServiceBinding.of("web", WEB_SVC, List.of(servers));
  }

  static Map<String, ServiceBinding> config(ServiceBinding... vss) {
    java.util.LinkedHashMap<String, ServiceBinding> m = new java.util.LinkedHashMap<>();
    for (ServiceBinding v : vss) {
      m.put(v.name(), v);
    }
    return m;
  }

  static InitialState up(String... alive) {
    return new InitialState(Set.of(alive), true);
  }

  static InitialState belowQuorum(String... alive) {
    return new InitialState(Set.of(alive), false);
  }

  static TableOp add(String addr, int w) {
    return new TableOp.AddDest(WEB, Dest.of(ip(addr), 80, w));
  }

  static TableOp set(String addr, int w) {
    return new TableOp.SetDest(WEB, Dest.of(ip(addr), 80, w));
  }

  static TableOp del(String addr) {
    return new TableOp.DelDest(WEB, key(addr));
  }

  static Dest dr(String addr, int port) {
    return new Dest(ip(addr), port, ForwardingMethod.DROUTE, 1, 0, 0, null);
  }
}
