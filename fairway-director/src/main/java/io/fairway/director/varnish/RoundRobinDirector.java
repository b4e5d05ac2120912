package io.fairway.director.varnish;

import io.fairway.director.Backend;
import io.fairway.director.PlainDirector;
import io.fairway.director.Request;
import io.fairway.director.Snapshot;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * Varnish's {@code round_robin}: members in add order, skipping those that are down; the cursor
 * moves just past the member chosen. Weights are ignored.
 *
 * <p>Deviations from Varnish, both on purpose:
 *
 * <ul>
 *   <li>Varnish advances its cursor under a read lock without atomics, so concurrent picks can
 *       return the same backend twice (accepted upstream, varnish-cache#3474). Here the cursor
 *       moves by compare-and-set, so every pick takes its own turn: strict rotation under any
 *       concurrency, still without locks.
 *   <li>After {@code remove_backend} Varnish can read a stale slot past the end of its array (and
 *       panic if it is NULL). Here the cursor is taken modulo the current member count.
 * </ul>
 *
 * <p>Slow start ({@link #ramp}): a ramping member is admitted on a fraction of its turns; a
 * declined turn goes to the next up member and the cursor moves past both, so the others keep their
 * order. When no other member is up the ramping one is chosen anyway.
 */
public final class RoundRobinDirector extends PlainDirector {

  private final AtomicInteger next = new AtomicInteger();

  /** A round-robin director with the system clock. */
  public RoundRobinDirector(String name) {
    this(name, null);
  }

  /** A round-robin director with a given clock (nanoseconds). */
  public RoundRobinDirector(String name, @Nullable LongSupplier clock) {
    super(name, "round_robin", clock);
    start();
  }

  @Override
  protected boolean rampsInChoose() {
    return true;
  }

  @Override
  public @Nullable Backend choose(Request request) {
    Snapshot s = state().snapshot();
    int n = s.size();
    if (n == 0 || !s.anyUp()) {
      return null;
    }
    if (anyRamping()) {
      return chooseRamping(s, n);
    }
    while (true) {
      int cur = next.get();
      // The cursor is only ever set to 0 .. n-1 of some snapshot, so it is non-negative and
      // below n unless members were removed since; the modulo (an integer division) is only
      // needed then.
      int i = cur < n ? cur : cur % n;
      for (int u = 0; u < n; u++) {
        if (s.up(i)) {
          if (next.compareAndSet(cur, i + 1 == n ? 0 : i + 1)) {
            return s.backend(i);
          }
          break; // someone else took this turn: start over from the new cursor
        }
        if (++i == n) {
          i = 0;
        }
      }
    }
  }

  /** {@link #choose} while a member ramps: the same walk, skipping the turns its ramp declines. */
  private @Nullable Backend chooseRamping(Snapshot s, int n) {
    while (true) {
      int cur = next.get();
      int i = cur < n ? cur : cur % n;
      int declined = -1;
      int chosen = -1;
      for (int u = 0; u < n; u++) {
        if (s.up(i)) {
          if (admit(s, i)) {
            chosen = i;
            break;
          }
          if (declined < 0) {
            declined = i;
          }
        }
        if (++i == n) {
          i = 0;
        }
      }
      int pick = chosen >= 0 ? chosen : declined;
      if (next.compareAndSet(cur, pick + 1 == n ? 0 : pick + 1)) {
        return s.backend(pick);
      }
    }
  }
}
