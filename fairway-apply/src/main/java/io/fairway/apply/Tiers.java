package io.fairway.apply;

import java.util.LinkedHashSet;
import java.util.Set;

/**
 * Backup tiers (RFC 2782's SRV priorities): a real server of tier {@code t > 0} stands by, out of
 * the table (at weight 0 with {@code inhibit_on_failure}), while any server of a lower tier of its
 * virtual server takes new connections — up by its verdict, not in maintenance, at a weight above
 * 0; when none does, it serves as a tier-0 server would. A lower-tier server at weight 0 (drained
 * by an operator, or left the DNS answer and drained until {@code hold} ends) takes none, so it
 * holds no backup out. Every server of tier 0 (all written ones) is never standing by.
 */
final class Tiers {
  private Tiers() {}

  /** Whether the server stands by because a lower tier has a server up. */
  static boolean standby(VsState vs, RsState rs) {
    int t = rs.config.tier();
    if (t == 0) {
      return false;
    }
    for (RsState o : vs.servers.values()) {
      if (o.config.tier() < t && o.alive() && !o.maint() && o.weight() > 0) {
        return true;
      }
    }
    return false;
  }

  /** Up by its verdict and not standing by: what the table should serve (quorum aside). */
  static boolean serving(VsState vs, RsState rs) {
    return rs.alive() && !standby(vs, rs);
  }

  /** The servers of the virtual server standing by now. */
  static Set<RsState> standing(VsState vs) {
    if (!vs.tiered) {
      return Set.of();
    }
    Set<RsState> out = new LinkedHashSet<>();
    for (RsState rs : vs.servers.values()) {
      if (standby(vs, rs)) {
        out.add(rs);
      }
    }
    return out;
  }

  /**
   * The backups whose standing changed since {@code before} follow: those no longer standing by go
   * in (with slow start as any server that comes up), then those now standing by go out.
   */
  static void follow(VsState vs, Set<RsState> before, ServerMoves moves)
      throws io.fairway.table.TableException {
    Set<RsState> after = standing(vs);
    for (RsState rs : before) {
      if (!after.contains(rs) && rs.alive() && !rs.maint()) {
        moves.up(vs, rs);
      }
    }
    for (RsState rs : after) {
      if (!before.contains(rs) && rs.alive() && !rs.maint() && rs.present()) {
        moves.out(vs, rs, false);
      }
    }
  }
}
