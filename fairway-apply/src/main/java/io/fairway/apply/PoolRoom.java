package io.fairway.apply;

import io.fairway.table.DestEntry;
import io.fairway.table.DestKey;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Whether a service's pool has room for a new connection, decided from the counters the kernel
 * exports, because the flag it decides with does not leave the kernel.
 *
 * <p>The kernel's schedulers skip a destination with {@code IP_VS_DEST_F_OVERLOAD} set or weight 0.
 * The flag is set when a connection is bound and active + inactive reaches {@code u_threshold}, and
 * cleared when one is unbound and the total is below {@code l_threshold} (below 3/4 of {@code
 * u_threshold} when there is no lower threshold). It is not exported over netlink, but between
 * those two marks it keeps its last value, so the same hysteresis applied to successive readings of
 * the counters reproduces it: at or above the upper mark it is set, below the lower one it is
 * clear, in between it is what it was.
 *
 * <p>One instance per service, kept across readings (it holds the in-between state). The sorry
 * server is not part of the pool. Destinations nobody configured (added with {@code ipvsadm}) are:
 * the kernel schedules them too.
 */
final class PoolRoom {
  /** The flag as last estimated, and the upper threshold it was estimated under. */
  private record Flag(boolean set, int upper) {}

  private final Map<DestKey, Flag> flags = new HashMap<>();

  /**
   * Reads one snapshot of the service's destinations and says whether any real server can take a
   * new connection.
   *
   * @param dests the service's destinations as read back
   * @param sorry the sorry server's key, left out of the pool
   */
  boolean hasRoom(List<DestEntry> dests, DestKey sorry) {
    boolean room = false;
    Map<DestKey, Flag> seen = new HashMap<>();
    for (DestEntry e : dests) {
      DestKey k = e.dest().key();
      if (k.equals(sorry)) {
        continue;
      }
      boolean over = overloaded(e, before(flags.get(k), e.dest().upperThreshold()));
      seen.put(k, new Flag(over, e.dest().upperThreshold()));
      if (e.dest().weight() > 0 && !over) {
        room = true;
      }
    }
    // Forget destinations that left, so a re-added one starts from its own counters.
    flags.clear();
    flags.putAll(seen);
    return room;
  }

  /**
   * The flag before this reading: SET_DEST clears it at once when the upper threshold is removed or
   * raised (__ip_vs_update_dest), so a raised threshold starts clear.
   */
  private static boolean before(@Nullable Flag f, int upper) {
    if (f == null || !f.set()) {
      return false;
    }
    return upper != 0 && upper <= f.upper();
  }

  /** The kernel's OVERLOAD flag after these counters, given its previous value. */
  static boolean overloaded(DestEntry e, boolean before) {
    long total = (long) e.activeConnections() + e.inactiveConnections();
    long u = e.dest().upperThreshold();
    long l = e.dest().lowerThreshold();
    if (u != 0 && total >= u) {
      return true;
    }
    if (l != 0) {
      return total < l ? false : before;
    }
    if (u != 0) {
      return total * 4 < u * 3 ? false : before;
    }
    return false;
  }
}
