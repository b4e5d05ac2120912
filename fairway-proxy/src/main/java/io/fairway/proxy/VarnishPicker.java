package io.fairway.proxy;

import io.fairway.director.AbstractDirector;
import io.fairway.director.Backend;
import io.fairway.director.Member;
import io.fairway.director.Request;
import io.fairway.director.varnish.FallbackDirector;
import io.fairway.director.varnish.HashDirector;
import io.fairway.director.varnish.RandomDirector;
import io.fairway.director.varnish.RoundRobinDirector;
import io.fairway.director.varnish.ShardDirector;
import io.fairway.director.varnish.ShardHealthy;
import io.fairway.director.varnish.ShardParams;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * A Varnish director (round_robin, fallback, random, hash, shard) over a service's real servers.
 *
 * <p>Weight 0 is a drain here as everywhere in the table: the member is marked unhealthy, so the
 * director skips it exactly as Varnish skips a sick backend (shard walks to the next on the ring,
 * so only that server's keys move).
 */
final class VarnishPicker {
  static final Set<String> NAMES = Set.of("round_robin", "fallback", "random", "hash", "shard");

  private final AbstractDirector<?> director;

  VarnishPicker(String algorithm, Map<String, String> params) {
    String a = algorithm.toLowerCase(Locale.ROOT);
    this.director =
        switch (a) {
          case "round_robin" -> new RoundRobinDirector("vs");
          case "fallback" -> new FallbackDirector("vs", bool(params, "sticky"), null);
          case "random" -> new RandomDirector("vs");
          case "hash" -> new HashDirector("vs");
          case "shard" ->
              new ShardDirector(
                  "vs",
                  new ShardDirector.Settings(
                      (int) num(params, "replicas", 67),
                      num(params, "warmup", 0),
                      num(params, "rampup", 0),
                      ShardParams.DEFAULTS.withHealthy(healthy(params))),
                  null,
                  null);
          default -> throw new IllegalArgumentException("unknown director '" + algorithm + "'");
        };
  }

  private static ShardHealthy healthy(Map<String, String> p) {
    String v = p.get("healthy");
    return v == null ? ShardParams.DEFAULTS.healthy() : ShardHealthy.valueOf(v.trim().toUpperCase(Locale.ROOT));
  }

  private static boolean bool(Map<String, String> p, String k) {
    String v = p.get(k);
    return v != null && (v.equalsIgnoreCase("true") || v.equals("1") || v.equalsIgnoreCase("on"));
  }

  private static double num(Map<String, String> p, String k, double dflt) {
    String v = p.get(k);
    if (v == null) {
      return dflt;
    }
    try {
      return Double.parseDouble(v.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("director parameter " + k + " is not a number: " + v);
    }
  }

  /** Publishes the servers (in table order) as one snapshot, keeping rampup clocks of survivors. */
  void update(List<RealServer> servers) {
    long now = director.now();
    director.update(
        cur -> {
          List<Member> next = new ArrayList<>(servers.size());
          for (RealServer rs : servers) {
            boolean up = rs.weight() > 0;
            Member old = null;
            for (Member m : cur) {
              if (m.backend() == rs) {
                old = m;
                break;
              }
            }
            next.add(
                old == null
                    ? new Member(rs, Math.max(rs.weight(), 0), up, now, null, Double.NaN)
                    : old.withWeight(rs.weight()).withHealth(up, now));
          }
          return next;
        });
  }

  /**
   * The {@code alt}-th choice for this client and key; {@code null} when the director finds none.
   * Without a key, hashing directors hash the client's address.
   */
  RealServer pick(InetSocketAddress client, InetSocketAddress vip, String key, int alt) {
    String k = key != null ? key : client.getAddress().getHostAddress();
    Request r = Request.ofFlow(client, vip).withKeyString(k);
    if (alt > 0) {
      r = r.withAlt(alt);
    }
    Backend b = director.pick(r);
    return b instanceof RealServer rs ? rs : null;
  }
}
