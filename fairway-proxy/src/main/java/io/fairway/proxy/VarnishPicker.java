package io.fairway.proxy;

import io.fairway.director.AbstractDirector;
import io.fairway.director.Backend;
import io.fairway.director.Member;
import io.fairway.director.Request;
import io.fairway.plan.Directors;
import io.fairway.plan.MemberPlan;
import io.fairway.plan.Selection;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * A Varnish director (round_robin, fallback, random, hash, shard) over a service's real servers,
 * built by the plan's {@link Directors}, the same code {@code fairway pick} uses, from the plan's
 * names, idents and decimal weights.
 *
 * <p>Weight 0 is a drain here as everywhere in the table: the member is marked unhealthy, so the
 * director skips it exactly as Varnish skips a sick backend (shard walks to the next on the ring,
 * so only that server's keys move).
 */
final class VarnishPicker {
  private final AbstractDirector<?> director;

  /**
   * A picker for {@code selection}; members of {@code previous} that stay keep their health clock
   * (rampup), so changing a director parameter on reload does not restart a rampup.
   */
  VarnishPicker(Selection.Varnish selection, VarnishPicker previous) {
    this.director = Directors.create("vs", selection, null);
    if (previous != null) {
      List<Member> kept = previous.director.members();
      director.update(cur -> kept); // as they were, health clocks included
    }
  }

  /**
   * Publishes the servers (in table order) as one snapshot, keeping rampup clocks of survivors.
   * A member's weight is the plan's decimal while the table carries the plan's weight for it;
   * a weight the table changed since (a dynamic checker weight) is taken as it is.
   */
  void update(List<RealServer> servers, Map<io.fairway.table.DestKey, MemberPlan> plan) {
    long now = director.now();
    director.update(
        cur -> {
          Map<Backend, Member> old = new IdentityHashMap<>();
          for (Member m : cur) {
            old.put(m.backend(), m);
          }
          List<Member> next = new ArrayList<>(servers.size());
          for (RealServer rs : servers) {
            boolean up = rs.weight() > 0;
            MemberPlan mp = plan.get(rs.key);
            double weight = mp != null && rs.weight() == mp.tableWeight() ? mp.weight() : Math.max(rs.weight(), 0);
            String ident = mp != null ? mp.ident() : null;
            Member was = old.get(rs);
            Member m;
            if (was == null) {
              m = new Member(rs, weight, up, now, ident, Double.NaN);
            } else {
              m = was.withWeight(weight).withHealth(up, now);
              if (!java.util.Objects.equals(was.ident(), ident)) {
                m = m.withIdent(ident);
              }
            }
            next.add(m);
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
