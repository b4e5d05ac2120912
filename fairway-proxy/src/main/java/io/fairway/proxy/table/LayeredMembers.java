package io.fairway.proxy.table;

import io.fairway.director.AbstractDirector;
import io.fairway.director.Backend;
import io.fairway.director.Member;
import io.fairway.plan.DirectorTree;
import io.fairway.plan.MemberPlan;
import io.fairway.table.DestKey;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The table's servers as members of a layered service's directors ({@code director NAME { }}
 * blocks): each director gets the real servers its plan names, with the same rules as a plain
 * director ({@link VarnishPicker}): a planned member not in the table stays as a sick backend,
 * weight 0 is a drain, the plan's decimal weight and ident. A table destination that no plan names
 * has no layer to go into and is not chosen.
 */
final class LayeredMembers {
  private LayeredMembers() {}

  /** What one real server is in every layer it belongs to. */
  private record Entry(Backend backend, double weight, boolean up, String ident) {}

  /** The members of {@code previous}'s directors by name, so a rebuilt tree keeps their clocks. */
  static Map<String, List<Member>> carried(DirectorTree previous) {
    if (!previous.layered()) {
      return Map.of();
    }
    Map<String, List<Member>> out = new HashMap<>();
    previous.groups().forEach((name, d) -> out.put(name, d.members()));
    out.put("", previous.top().members());
    return out;
  }

  static void publish(
      DirectorTree tree,
      List<ProxyBackend> servers,
      Map<DestKey, MemberPlan> plan,
      Map<String, List<Member>> carried,
      Map<DestKey, VarnishPicker.Absent> absent) {
    Map<DestKey, ProxyBackend> byKey = new HashMap<>();
    for (ProxyBackend rs : servers) {
      byKey.put(rs.key, rs);
    }
    Map<String, Entry> byName = new LinkedHashMap<>();
    for (Map.Entry<DestKey, MemberPlan> e : plan.entrySet()) {
      MemberPlan mp = e.getValue();
      ProxyBackend rs = byKey.get(e.getKey());
      Backend b =
          rs != null
              ? rs
              : absent.computeIfAbsent(e.getKey(), k -> new VarnishPicker.Absent(mp.name()));
      boolean up = rs != null && rs.weight() > 0;
      double weight = rs == null || rs.weight() == mp.tableWeight() ? mp.weight() : rs.weight();
      byName.put(mp.name(), new Entry(b, weight, up, mp.ident()));
    }
    long now = tree.top().now();
    // By identity: each director instance of the tree, however alike two of them are.
    IdentityHashMap<AbstractDirector<?>, Map<String, Member>> old = new IdentityHashMap<>();
    tree.update(
        (d, name) -> {
          Entry e = byName.get(name);
          if (e == null) {
            return null;
          }
          Member was = old.computeIfAbsent(d, x -> previous(x, tree, carried)).get(e.ident());
          return VarnishPicker.member(was, e.backend(), e.weight(), e.up(), e.ident(), now);
        });
  }

  /** A director's current members by ident, or those it had in the tree it replaces. */
  private static Map<String, Member> previous(
      AbstractDirector<?> d, DirectorTree tree, Map<String, List<Member>> carried) {
    List<Member> cur = d.members();
    if (cur.isEmpty()) {
      cur = carried.getOrDefault(d == tree.top() ? "" : d.name(), List.of());
    }
    Map<String, Member> m = new HashMap<>();
    for (Member x : cur) {
      m.put(x.effectiveIdent(), x);
    }
    return m;
  }
}
