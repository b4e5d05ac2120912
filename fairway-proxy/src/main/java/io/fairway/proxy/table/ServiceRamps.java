package io.fairway.proxy.table;

import io.fairway.table.DestKey;
import io.fairway.table.Ramp;
import java.util.HashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The slow starts the apply layer handed over to one service, by destination, on the {@link
 * System#nanoTime} clock. Kept by the service rather than by its algorithm so that a rebuilt
 * algorithm (a reload) ramps on where it was, and so that a ramp given before its destination is
 * added applies from the add. Guarded by the table's lock.
 */
final class ServiceRamps {
  /** One ramp: its start in {@link System#nanoTime} and its length. */
  record Times(long start, long nanos) {
    /** How far it is, as of {@code now}. */
    long elapsed(long now) {
      return now - start;
    }
  }

  private final Map<DestKey, Times> byDest = new HashMap<>();

  /** Starts or moves ({@link Ramp#active}) or ends a destination's ramp. */
  void set(DestKey k, Ramp r) {
    if (r.active()) {
      byDest.put(k, new Times(System.nanoTime() - r.elapsed().toNanos(), r.duration().toNanos()));
    } else {
      byDest.remove(k);
    }
  }

  /** The destination is gone: so is its ramp. */
  void forget(DestKey k) {
    byDest.remove(k);
  }

  /** The destination's ramp if it is still running (an ended one is forgotten), else null. */
  @Nullable Times current(DestKey k) {
    Times t = byDest.get(k);
    if (t != null && System.nanoTime() - t.start() >= t.nanos()) {
      byDest.remove(k);
      return null;
    }
    return t;
  }
}
