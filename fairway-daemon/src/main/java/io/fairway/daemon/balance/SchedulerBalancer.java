package io.fairway.daemon.balance;

import io.fairway.director.sched.Connection;
import io.fairway.director.sched.DestSpec;
import io.fairway.director.sched.Flow;
import io.fairway.director.sched.Flows;
import io.fairway.director.sched.LoadSnapshot;
import io.fairway.director.sched.SchedService;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A virtual server balanced by a kernel scheduler. Each key is one new connection that stays open,
 * so least-connection schedulers spread keys as they would spread long-lived connections. A real
 * server that is down is removed from the service, or kept at weight 0 with {@code
 * inhibit_on_failure}, as keepalived does.
 */
public final class SchedulerBalancer implements Balancer {

  private final String name;
  private final String algorithm;
  private final SchedService service;
  private final Map<String, DestSpec> specs; // config order
  private final Map<String, Boolean> inhibit;
  private final Map<String, Boolean> up = new LinkedHashMap<>();
  private final @Nullable InetAddress vip;
  private final int vport;
  private final Flow anonymous;
  private @Nullable LoadSnapshot load;
  private Map<String, java.time.Duration> slowStarts = Map.of();

  private static final java.util.Set<String> HASHING = java.util.Set.of("sh", "dh", "mh");

  SchedulerBalancer(
      String name,
      String algorithm,
      SchedService service,
      Map<String, DestSpec> specs,
      Map<String, Boolean> inhibit,
      @Nullable InetAddress vip,
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

  /** This balancer with each real server's slow start, for {@link #ramp}. */
  SchedulerBalancer withSlowStarts(Map<String, java.time.Duration> s) {
    slowStarts = Map.copyOf(s);
    return this;
  }

  @Override
  public RampView ramp(String server, java.time.Duration elapsed) {
    if (!specs.containsKey(server)) {
      throw new BalanceException(
          "no real_server named '"
              + server
              + "' in virtual_server "
              + name
              + " (have: "
              + String.join(", ", specs.keySet())
              + ")");
    }
    if (HASHING.contains(algorithm)) {
      throw new BalanceException(
          "lb_algo "
              + algorithm
              + " does not ramp in the scheduler (a"
              + " ramp could only move clients between servers; see docs/schedulers.md)");
    }
    java.time.Duration d = slowStarts.getOrDefault(server, java.time.Duration.ZERO);
    if (d.isZero()) {
      throw new BalanceException(
          "real_server " + server + " of virtual_server " + name + " has no slow_start");
    }
    io.fairway.director.sched.SchedDest dest = service.byName(server);
    if (dest == null) {
      throw new BalanceException("--ramping: real_server " + server + " is down");
    }
    service.ramp(dest, elapsed.toNanos(), d.toNanos());
    int w = specs.get(server).weight();
    return new RampView(
        server,
        elapsed,
        d,
        dest.rampFraction(),
        w,
        io.fairway.apply.SlowStartSteps.weight(w, elapsed.toNanos(), d.toNanos()));
  }

  /** The scheduler service, for a data plane that schedules its own flows. */
  public SchedService service() {
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
      if (Objects.requireNonNull(up.get(e.getKey()), "every server has a state")) {
        l.add(e.getValue());
      } else if (Objects.requireNonNull(inhibit.get(e.getKey()), "every server has a setting")) {
        l.add(e.getValue().withWeight(0));
      }
    }
    service.reconcile(l);
  }

  /**
   * Fixes every server's connection counts to a load snapshot; each later {@link #pick} then asks
   * which server a new connection would get with exactly that load, instead of adding its own
   * connection to the count.
   */
  public void setLoad(LoadSnapshot snapshot) {
    snapshot.applyTo(service);
    this.load = snapshot;
  }

  @Override
  public @Nullable String pick(String key) {
    Flow f;
    try {
      f = flow(key);
    } catch (IllegalArgumentException e) {
      if (HASHING.contains(algorithm)) {
        throw e; // sh, dh and mh choose by address: a key that is not one is a mistake
      }
      f = anonymous; // the others do not look at the client (without persistence)
    }
    if (load != null) {
      load.applyTo(service); // "right now": the previous key's connection is not counted
    }
    Connection c = service.open(f);
    return c == null ? null : c.dest().name();
  }

  /**
   * The flow a key line stands for: the client address for every scheduler but dh, for which it is
   * the destination address (dh hashes the destination). {@code IP}, {@code IP:PORT}, {@code
   * [IPv6]:PORT} or a bare IPv6 literal; never DNS.
   */
  Flow flow(String key) {
    if ("dh".equals(algorithm)) {
      InetSocketAddress d = Flows.parseHostPort(key, "destination");
      return new Flow(InetAddress.getLoopbackAddress(), 0, d.getAddress(), d.getPort());
    }
    InetSocketAddress c = Flows.parseHostPort(key, "client");
    return new Flow(c.getAddress(), c.getPort(), vip, vport);
  }
}
