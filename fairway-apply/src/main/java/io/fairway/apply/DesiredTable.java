package io.fairway.apply;

import static io.fairway.apply.FanOut.destFor;

import io.fairway.apply.Applier.DesiredService;
import io.fairway.table.Dest;
import io.fairway.table.DestKey;
import io.fairway.table.Service;
import io.fairway.table.ServiceKey;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The table the applier's state says there should be: what drift repair converges to, and what a
 * reload compares against.
 */
final class DesiredTable {
  private DesiredTable() {}

  /** The weight a server should have in the table, or null when it should be absent. */
  static @Nullable Integer weight(VsState vs, RsState rs) {
    if (rs.maint()) {
      return null;
    }
    boolean serving = Tiers.serving(vs, rs) && !vs.sorryServing();
    if (serving) {
      return rs.ramping() ? rs.written() : rs.weight();
    }
    if (rs.config.inhibit()) {
      return 0;
    }
    return null;
  }

  /** See {@link Applier#desired}. */
  static Map<ServiceKey, DesiredService> of(Collection<VsState> vss) {
    Map<ServiceKey, DesiredService> out = new LinkedHashMap<>();
    for (VsState vs : vss) {
      if (!vs.initialized()) {
        continue;
      }
      for (Service s : vs.config.services()) {
        Map<DestKey, Dest> dests = new LinkedHashMap<>();
        for (RsState rs : vs.servers.values()) {
          Integer w = weight(vs, rs);
          if (w != null) {
            Dest d = destFor(s, rs.config.dest(), w);
            dests.put(d.key(), d);
          }
        }
        Dest sorry = vs.config.sorryServer();
        if (sorry != null && (vs.sorryServing() || vs.config.sorryStandsBy())) {
          Dest d = destFor(s, sorry, SorryMoves.weight(vs, s));
          dests.put(d.key(), d);
        }
        out.put(s.key(), new DesiredService(s, dests));
      }
    }
    return out;
  }

  /** After convergence the table is what {@link #of} says, so presence follows from it. */
  static void converged(Collection<VsState> vss) {
    for (VsState vs : vss) {
      if (!vs.initialized()) {
        continue;
      }
      for (RsState rs : vs.servers.values()) {
        rs.present(weight(vs, rs) != null);
      }
      vs.sorryPresent(
          vs.config.sorryServer() != null && (vs.sorryServing() || vs.config.sorryStandsBy()));
    }
  }
}
