package io.fairway.daemon.balance;

import io.fairway.director.sched.Connection;
import io.fairway.director.sched.DestSpec;
import io.fairway.director.sched.Flow;
import io.fairway.director.sched.VirtualService;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A virtual server balanced by a kernel scheduler. Each key is one new connection that stays
 * open, so least-connection schedulers spread keys as they would spread long-lived connections.
 * A real server that is down is removed from the service, or kept at weight 0 with {@code
 * inhibit_on_failure}, as keepalived does.
 */
public final class SchedulerBalancer implements Balancer {

  private final String name;
  private final String algorithm;
  private final VirtualService service;
  private final Map<String, DestSpec> specs; // config order
  private final Map<String, Boolean> inhibit;
  private final Map<String, Boolean> up = new LinkedHashMap<>();
  private final InetAddress vip;
  private final int vport;
  private final Flow anonymous;

  private static final java.util.Set<String> HASHING = java.util.Set.of("sh", "dh", "mh");

  SchedulerBalancer(
      String name,
      String algorithm,
      VirtualService service,
      Map<String, DestSpec> specs,
      Map<String, Boolean> inhibit,
      InetAddress vip,
      int vport) {
    this.name = name;
    this.algorithm = algorithm;
    this.service = service;
    this.specs = specs;
    this.inhibit = inhibit;
    this.vip = vip;
    this.vport = vport;
    this.anonymous = new Flow(InetAddress.getLoopbackAddress(), 0, vip, vport);
    specs.keySet().forEach(n -> up.put(n, true));
    reconcile();
  }

  /** The scheduler service, for a data plane that schedules its own flows. */
  public VirtualService service() {
    return service;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public String algorithm() {
    return algorithm;
  }

  @Override
  public List<String> servers() {
    return List.copyOf(specs.keySet());
  }

  @Override
  public boolean setUp(String server, boolean isUp) {
    if (!specs.containsKey(server)) {
      return false;
    }
    up.put(server, isUp);
    reconcile();
    return true;
  }

  private void reconcile() {
    List<DestSpec> l = new ArrayList<>();
    for (Map.Entry<String, DestSpec> e : specs.entrySet()) {
      if (up.get(e.getKey())) {
        l.add(e.getValue());
      } else if (inhibit.get(e.getKey())) {
        l.add(e.getValue().withWeight(0));
      }
    }
    service.reconcile(l);
  }

  @Override
  public String pick(String key) {
    Flow f;
    try {
      f = flow(key);
    } catch (IllegalArgumentException e) {
      if (HASHING.contains(algorithm)) {
        throw e; // sh, dh and mh choose by address: a key that is not one is a mistake
      }
      f = anonymous; // the others do not look at the client (without persistence)
    }
    Connection c = service.open(f);
    return c == null ? null : c.dest().name();
  }

  /** {@code IP}, {@code IP:PORT}, {@code [IPv6]:PORT} or a bare IPv6 literal; never DNS. */
  Flow flow(String key) {
    String s = key.strip();
    String host = s;
    int port = 0;
    if (s.startsWith("[")) {
      int close = s.indexOf(']');
      if (close < 0) {
        throw new IllegalArgumentException("'" + key + "' is not IP, IP:PORT or [IPv6]:PORT");
      }
      host = s.substring(1, close);
      if (close + 1 < s.length()) {
        port = port(key, s.substring(close + 1));
      }
    } else if (s.indexOf(':') == s.lastIndexOf(':') && s.indexOf(':') >= 0) {
      host = s.substring(0, s.indexOf(':'));
      port = port(key, s.substring(s.indexOf(':')));
    }
    return new Flow(literal(key, host), port, vip, vport);
  }

  private static int port(String key, String colonPort) {
    try {
      if (!colonPort.startsWith(":")) {
        throw new NumberFormatException();
      }
      int p = Integer.parseInt(colonPort.substring(1));
      if (p < 0 || p > 65535) {
        throw new NumberFormatException();
      }
      return p;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("'" + key + "' has no valid port");
    }
  }

  private static InetAddress literal(String key, String host) {
    boolean v4 = host.matches("\\d{1,3}(\\.\\d{1,3}){3}");
    boolean v6 = host.indexOf(':') >= 0 && host.matches("[0-9A-Fa-f:.]+");
    if (v4) {
      for (String part : host.split("\\.")) {
        v4 &= Integer.parseInt(part) <= 255;
      }
    }
    if (!v4 && !v6) {
      throw new IllegalArgumentException("'" + key + "' is not a client address (IP or IP:PORT)");
    }
    try {
      return InetAddress.getByName(host); // a literal: no lookup happens
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException("'" + key + "' is not a client address (IP or IP:PORT)");
    }
  }
}
