package io.fairway.director;

import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * The slow starts of one director's members as of one snapshot: per member index, how far its ramp
 * is ({@link SlowStart#units}) and the credit that admits it on that fraction of its turns.
 * Published by {@link AbstractDirector} next to its state and rebuilt when a ramp enters its next
 * step (at most {@link SlowStart#STEPS} times per ramp) or the members change; a pick reads it
 * without locking or allocating.
 */
final class Ramps {

  /** One member's ramp, kept by name across snapshots so its credit survives every rebuild. */
  static final class Entry {
    final long start;
    final long nanos;
    final AtomicInteger credit = new AtomicInteger();

    Entry(long start, long nanos) {
      this.start = start;
      this.nanos = nanos;
    }
  }

  /** The snapshot version the indexes refer to. */
  final long version;

  private final int[] units;
  private final Entry[] entries;

  /** When the next step is due, in the director's clock; {@link Long#MAX_VALUE} for never. */
  final long next;

  private Ramps(long version, int[] units, Entry[] entries, long next) {
    this.version = version;
    this.units = units;
    this.entries = entries;
    this.next = next;
  }

  /**
   * The ramps of {@code byName} over this snapshot at {@code now}, or {@code null} when none is
   * running. Ramps whose time is up are removed from {@code byName}.
   */
  static @Nullable Ramps of(Snapshot s, Map<String, Entry> byName, long now) {
    long next = Long.MAX_VALUE;
    for (Iterator<Entry> it = byName.values().iterator(); it.hasNext(); ) {
      Entry e = it.next();
      long at = SlowStart.nextStep(now - e.start, e.nanos);
      if (at == Long.MAX_VALUE) {
        it.remove();
      } else if (next == Long.MAX_VALUE || e.start + at - next < 0) {
        next = e.start + at;
      }
    }
    if (byName.isEmpty()) {
      return null;
    }
    int n = s.size();
    int[] units = new int[n];
    Entry[] entries = new Entry[n];
    for (int i = 0; i < n; i++) {
      Entry e = byName.get(s.member(i).name());
      entries[i] = e;
      units[i] = e == null ? SlowStart.STEPS : SlowStart.units(now - e.start, e.nanos);
    }
    return new Ramps(s.version(), units, entries, next);
  }

  /** Member {@code i}'s progress, 1..100 (100 when not ramping). */
  int units(int i) {
    return i < units.length ? units[i] : SlowStart.STEPS;
  }

  /** Whether this turn admits member {@code i} ({@link SlowStart#credit}). */
  boolean admit(int i) {
    int u = units(i);
    if (u >= SlowStart.STEPS) {
      return true;
    }
    AtomicInteger c = entries[i].credit;
    while (true) {
      int was = c.get();
      int r = SlowStart.credit(was, u);
      if (c.compareAndSet(was, SlowStart.remaining(r))) {
        return SlowStart.admitted(r);
      }
    }
  }
}
