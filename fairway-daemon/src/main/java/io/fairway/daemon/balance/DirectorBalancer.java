package io.fairway.daemon.balance;

import io.fairway.director.AbstractDirector;
import io.fairway.director.Backend;
import io.fairway.director.Member;
import io.fairway.director.Request;
import io.fairway.director.varnish.VarnishHash;
import io.fairway.plan.DirectorTree;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A virtual server balanced by one of the Varnish directors, or by several layered ({@code director
 * NAME { }} blocks): a pick resolves down the layers as the data plane's does.
 */
public final class DirectorBalancer implements Balancer {

  private final String name;
  private final DirectorTree tree;
  private final List<String> servers;
  private final boolean hashesKey;
  private final int alt;
  private final Map<String, Duration> slowStarts;

  /** shard's rampup, or {@code null} for the other directors. */
  private final @Nullable Duration rampup;

  DirectorBalancer(
      String name,
      DirectorTree tree,
      List<String> servers,
      boolean hashesKey,
      int alt,
      Map<String, Duration> slowStarts,
      @Nullable Duration rampup) {
    this.name = name;
    this.tree = tree;
    this.servers = List.copyOf(servers);
    this.hashesKey = hashesKey;
    this.alt = alt;
    this.slowStarts = Map.copyOf(slowStarts);
    this.rampup = rampup;
  }

  @Override
  public RampView ramp(String server, Duration elapsed) {
    AbstractDirector<?> director = holder(server);
    Member m =
        director.members().stream().filter(x -> x.name().equals(server)).findFirst().orElseThrow();
    long now = director.now();
    if (rampup != null) {
      // shard: Varnish's rampup from the member's health change; everybody else has been up for
      // long (the what-if is about this one server).
      if (rampup.isZero()) {
        throw new BalanceException(
            "virtual_server "
                + name
                + ": lb_algo shard has no rampup"
                + " (set slow_start or shard { rampup })");
      }
      director.update(
          cur ->
              cur.stream()
                  .map(
                      x ->
                          x.name().equals(server)
                              ? x.withChanged(now - elapsed.toNanos())
                              : x.changedNanos() == now ? x.withChanged(0) : x)
                  .toList());
      double f = Math.min(1.0, (double) elapsed.toNanos() / rampup.toNanos());
      return new RampView(server, elapsed, rampup, f, m.weight(), 0);
    }
    Duration d = slowStarts.getOrDefault(server, Duration.ZERO);
    if (d.isZero()) {
      throw new BalanceException(
          "real_server " + server + " of virtual_server " + name + " has no slow_start");
    }
    if (!director.ramp(server, elapsed.toNanos(), d.toNanos())) {
      throw new BalanceException(
          "lb_algo "
              + director.algorithm()
              + " does not ramp in the"
              + " director (a ramp could only move keys; see docs/schedulers.md)");
    }
    return new RampView(
        server,
        elapsed,
        d,
        director.rampFraction(server),
        m.weight(),
        io.fairway.apply.SlowStartSteps.weight(
            (int) Math.ceil(m.weight()), elapsed.toNanos(), d.toNanos()));
  }

  /**
   * The director that has {@code server} as a member (in a layered service, the layer it is
   * configured in: that is the director whose choice the ramp changes).
   */
  private AbstractDirector<?> holder(String server) {
    List<AbstractDirector<?>> all = new ArrayList<>(tree.groups().values());
    all.add(tree.top());
    for (AbstractDirector<?> d : all) {
      if (d.members().stream()
          .anyMatch(m -> m.name().equals(server) && !(m.backend() instanceof AbstractDirector))) {
        return d;
      }
    }
    throw new BalanceException(
        "no real_server named '"
            + server
            + "' in virtual_server "
            + name
            + " (have: "
            + String.join(", ", servers())
            + ")");
  }

  /** The top director, for a data plane that picks with its own {@link Request}s. */
  public AbstractDirector<?> director() {
    return tree.top();
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public String algorithm() {
    return tree.top().algorithm();
  }

  @Override
  public List<String> servers() {
    return servers;
  }

  /** Marks the server up or down in every director that has it as a member. */
  @Override
  public boolean setUp(String server, boolean up) {
    boolean found = false;
    List<AbstractDirector<?>> all = new ArrayList<>(tree.groups().values());
    all.add(tree.top());
    for (AbstractDirector<?> d : all) {
      boolean member =
          d.members().stream()
              .anyMatch(m -> m.name().equals(server) && !(m.backend() instanceof AbstractDirector));
      if (member) {
        found |= d.setHealthy(server, up);
      }
    }
    return found || (servers.contains(server) && tree.layered());
  }

  private Request request(String key) {
    Request r = hashesKey ? Request.ofKey(VarnishHash.hash32(key)) : Request.EMPTY;
    return alt >= 0 ? r.withAlt(alt) : r;
  }

  @Override
  public @Nullable String pick(String key) {
    Backend b = tree.pick(request(key));
    return b == null ? null : b.name();
  }

  /**
   * For a layered service, the directors the key passes through and the server it ends on, {@code
   * primary/b3} ({@code primary/-} when that director finds none); else as {@link #pick}.
   */
  @Override
  public @Nullable String route(String key) {
    if (!tree.layered()) {
      return pick(key);
    }
    List<Backend> path = tree.route(request(key));
    StringBuilder b = new StringBuilder();
    for (Backend x : path) {
      if (b.length() > 0) {
        b.append('/');
      }
      b.append(x == null ? "-" : x.name());
    }
    return path.get(path.size() - 1) == null && path.size() == 1 ? null : b.toString();
  }
}
