package io.fairway.proxy.table;

import io.fairway.plan.MemberPlan;
import io.fairway.table.Dest;
import io.fairway.table.DestKey;
import io.fairway.table.Endpoints;
import java.util.LinkedHashMap;
import java.util.Map;

/** For tests and the bench's {@code ProxyMain}: what a plan says of members' {@code max_conns}. */
public final class PlannedLimits {
  private PlannedLimits() {}

  /** {@code base} with members whose plan gives each destination its {@code max_conns}. */
  public static ListenerSpec of(ListenerSpec base, Map<Dest, Integer> maxConns) {
    Map<DestKey, MemberPlan> members = new LinkedHashMap<>();
    maxConns.forEach(
        (d, max) -> {
          String name = Endpoints.format(d.address(), d.port());
          members.put(d.key(), MemberPlan.builder(name, d).weight(1).maxConns(max).build());
        });
    return new ListenerSpec(
        base.mode(), base.keySource(), base.selection(), members, base.sorryServer(), base.proxy());
  }
}
