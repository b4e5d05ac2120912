package io.fairway.proxy.table;

import io.fairway.director.AbstractDirector;
import io.fairway.director.Backend;
import io.fairway.director.Member;
import io.fairway.director.Request;
import io.fairway.plan.DirectorTree;
import io.fairway.plan.MemberPlan;
import io.fairway.plan.Selection;
import io.fairway.table.DestKey;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A Varnish director (round_robin, fallback, random, hash, shard) over a service's real servers,
 * built by the plan's {@link DirectorTree}, the same code {@code fairway pick} uses, from the
 * plan's names, idents and decimal weights.
 *
 * <p>Weight 0 is a drain here as everywhere in the table: the member is marked unhealthy, so the
 * director skips it exactly as Varnish skips a sick backend (shard walks to the next on the ring,
 * so only that server's keys move).
 */
final class VarnishPicker {
  private final DirectorTree tree;
  private final AbstractDirector<?> director;

  /**
   * A layered tree's members of the picker it replaces, by director name, until the first update.
   */
  private Map<String, List<Member>> carried = Map.of();

  /**
   * A picker for {@code selection}; members of {@code previous} that stay keep their health clock
   * (rampup), so changing a director parameter on reload does not restart a rampup.
   */
  VarnishPicker(Selection.Varnish selection, @Nullable VarnishPicker previous) {
    this.tree = new DirectorTree("vs", selection, null);
    this.director = tree.top();
    if (previous == null) {
      return;
    }
    if (tree.layered()) {
      carried = LayeredMembers.carried(previous.tree);
    } else if (!previous.tree.layered()) {
      List<Member> kept = previous.director.members();
      director.update(cur -> kept); // as they were, health clocks included
    }
  }

  /** A planned member that is not in the table: on the ring, never healthy. */
  record Absent(String name) implements Backend {}

  private final Map<DestKey, Absent> absent = new HashMap<>();

  /**
   * Publishes one snapshot: the planned members in plan order (those not in the table as sick
   * backends, as varnishd keeps a sick backend on its ring), then any table destination the plan
   * does not name. Survivors keep their health clocks; a member that comes back into the table
   * starts its rampup then. A member's weight is the plan's decimal while the table carries the
   * plan's weight for it; a weight the table changed since (a dynamic checker weight) is taken as
   * it is.
   */
  void update(List<ProxyBackend> servers, Map<DestKey, MemberPlan> plan) {
    if (tree.layered()) {
      LayeredMembers.publish(tree, servers, plan, carried, absent);
      carried = Map.of();
      return;
    }
    long now = director.now();
    Map<DestKey, ProxyBackend> byKey = new HashMap<>();
    for (ProxyBackend rs : servers) {
      byKey.put(rs.key, rs);
    }
    director.update(
        cur -> {
          Map<String, Member> old = new HashMap<>();
          for (Member m : cur) {
            old.put(m.effectiveIdent(), m);
          }
          List<Member> next = new ArrayList<>(servers.size() + plan.size());
          for (Map.Entry<DestKey, MemberPlan> e : plan.entrySet()) {
            MemberPlan mp = e.getValue();
            ProxyBackend rs = byKey.remove(e.getKey());
            Backend b =
                rs != null ? rs : absent.computeIfAbsent(e.getKey(), k -> new Absent(mp.name()));
            boolean up = rs != null && rs.weight() > 0;
            double weight =
                rs == null || rs.weight() == mp.tableWeight() ? mp.weight() : rs.weight();
            next.add(member(old.get(mp.ident()), b, weight, up, mp.ident(), now));
          }
          for (ProxyBackend rs : servers) {
            if (byKey.containsKey(rs.key)) {
              next.add(
                  member(
                      old.get(rs.name()),
                      rs,
                      Math.max(rs.weight(), 0),
                      rs.weight() > 0,
                      null,
                      now));
            }
          }
          return next;
        });
  }

  static Member member(
      @Nullable Member was,
      Backend b,
      double weight,
      boolean up,
      @Nullable String ident,
      long now) {
    if (was == null) {
      return new Member(b, weight, up, now, ident, Double.NaN);
    }
    long changed = was.healthy() == up ? was.changedNanos() : now;
    return new Member(b, weight, up, changed, ident, was.rampupSeconds());
  }

  /**
   * A member's slow start, in the director ({@link AbstractDirector#ramp}); shard and hash do not
   * ramp there (shard has its rampup, hash would move keys).
   */
  void ramp(ProxyBackend rs, long elapsedNanos, long durationNanos) {
    director.ramp(rs.name(), elapsedNanos, durationNanos);
  }

  /**
   * The {@code alt}-th choice for this client and key; {@code null} when the director finds none.
   * Without a key, hashing directors hash the client's address. A negative {@code alt} asks for
   * none, so a shard takes its own (its associated shard_param's) default; 0 or more overrides it.
   * In a layered service the request resolves down the layers and the shard it reaches uses it.
   */
  @Nullable ProxyBackend pick(
      InetSocketAddress client, @Nullable InetSocketAddress vip, @Nullable String key, int alt) {
    String k = key != null ? key : client.getAddress().getHostAddress();
    Request r = Request.ofFlow(client, vip).withKeyString(k);
    if (alt >= 0) {
      r = r.withAlt(alt);
    }
    Backend b = director.pick(r);
    return b instanceof ProxyBackend rs ? rs : null;
  }
}
