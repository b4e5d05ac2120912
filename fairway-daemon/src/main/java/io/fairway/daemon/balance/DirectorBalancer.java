package io.fairway.daemon.balance;

import io.fairway.director.AbstractDirector;
import io.fairway.director.Backend;
import io.fairway.director.Member;
import io.fairway.director.Request;
import io.fairway.director.varnish.VarnishHash;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/** A virtual server balanced by one of the Varnish directors. */
public final class DirectorBalancer implements Balancer {

  private final String name;
  private final AbstractDirector<?> director;
  private final boolean hashesKey;
  private final int alt;
  private final Map<String, Duration> slowStarts;
  /** shard's rampup, or {@code null} for the other directors. */
  private final Duration rampup;

  DirectorBalancer(String name, AbstractDirector<?> director, boolean hashesKey, int alt,
      Map<String, Duration> slowStarts, Duration rampup) {
    this.name = name;
    this.director = director;
    this.hashesKey = hashesKey;
    this.alt = alt;
    this.slowStarts = Map.copyOf(slowStarts);
    this.rampup = rampup;
  }

  @Override
  public RampView ramp(String server, Duration elapsed) {
    Member m = director.members().stream().filter(x -> x.name().equals(server)).findFirst()
        .orElseThrow(() -> new BalanceException("no real_server named '" + server + "' in virtual_server "
            + name + " (have: " + String.join(", ", servers()) + ")"));
    long now = director.now();
    if (rampup != null) {
      // shard: Varnish's rampup from the member's health change; everybody else has been up for
      // long (the what-if is about this one server).
      if (rampup.isZero()) {
        throw new BalanceException("virtual_server " + name + ": lb_algo shard has no rampup"
            + " (set slow_start or shard { rampup })");
      }
      director.update(cur -> cur.stream()
          .map(x -> x.name().equals(server) ? x.withChanged(now - elapsed.toNanos())
              : x.changedNanos() == now ? x.withChanged(0) : x)
          .toList());
      double f = Math.min(1.0, (double) elapsed.toNanos() / rampup.toNanos());
      return new RampView(server, elapsed, rampup, f, m.weight(), 0);
    }
    Duration d = slowStarts.getOrDefault(server, Duration.ZERO);
    if (d.isZero()) {
      throw new BalanceException("real_server " + server + " of virtual_server " + name
          + " has no slow_start");
    }
    if (!director.ramp(server, elapsed.toNanos(), d.toNanos())) {
      throw new BalanceException("lb_algo " + director.algorithm() + " does not ramp in the"
          + " director (a ramp could only move keys; see docs/schedulers.md)");
    }
    return new RampView(server, elapsed, d, director.rampFraction(server), m.weight(),
        io.fairway.apply.SlowStart.weight((int) Math.ceil(m.weight()), elapsed.toNanos(),
            d.toNanos()));
  }

  /** The director, for a data plane that picks with its own {@link Request}s. */
  public AbstractDirector<?> director() {
    return director;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public String algorithm() {
    return director.algorithm();
  }

  @Override
  public List<String> servers() {
    return director.members().stream().map(Member::name).toList();
  }

  @Override
  public boolean setUp(String server, boolean up) {
    return director.setHealthy(server, up);
  }

  @Override
  public String pick(String key) {
    Request r = hashesKey ? Request.ofKey(VarnishHash.hash32(key)) : Request.EMPTY;
    if (alt != 0) {
      r = r.withAlt(alt);
    }
    Backend b = director.pick(r);
    return b == null ? null : b.name();
  }
}
