package io.fairway.director.varnish;

import io.fairway.director.AbstractDirector;
import io.fairway.director.Backend;
import io.fairway.director.Member;
import io.fairway.director.Request;
import io.fairway.director.Snapshot;
import java.util.IdentityHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * Varnish's {@code fallback}: the first member that is up, in add order, which is how an operator
 * says "primary, then standby". With {@code sticky}, once traffic has moved to a standby it stays
 * there while that standby is up, even after the primary recovers, so a flapping primary does not
 * drag clients back and forth.
 *
 * <p>When members are removed, the sticky cursor moves exactly as Varnish's {@code
 * vdir_remove_backend} moves it: down by the number of members removed before it, to 0 if it falls
 * off the end. Varnish offers no way to reset stickiness (PR #3652 is open); neither does this,
 * except re-creating the director.
 *
 * <p>Slow start ({@link #ramp}): a recovered member that ramps is chosen on a fraction of the
 * requests that would go to it; the others go on down the list to the next member that is up, so
 * the member that carried the traffic while it was away hands it back progressively. The sticky
 * cursor does not move for a declined request.
 */
public final class FallbackDirector extends AbstractDirector<FallbackDirector.Sticky> {

  /** Published state: the snapshot and the sticky cursor that belongs to it. */
  public static final class Sticky extends AbstractDirector.State {
    final AtomicInteger cur;

    Sticky(Snapshot s, int cur) {
      super(s);
      this.cur = new AtomicInteger(cur);
    }
  }

  private final boolean sticky;

  /** A non-sticky fallback director. */
  public FallbackDirector(String name) {
    this(name, false, null);
  }

  /** A fallback director; {@code sticky} as Varnish's {@code directors.fallback(sticky)}. */
  public FallbackDirector(String name, boolean sticky, @Nullable LongSupplier clock) {
    super(name, "fallback", clock);
    this.sticky = sticky;
    start();
  }

  /** Whether this director is sticky. */
  public boolean sticky() {
    return sticky;
  }

  @Override
  protected Sticky derive(Snapshot s, @Nullable Sticky previous) {
    if (previous == null) {
      return new Sticky(s, 0);
    }
    Snapshot old = previous.snapshot();
    int cur = previous.cur.get();
    IdentityHashMap<Backend, Boolean> survivors = new IdentityHashMap<>();
    for (int i = 0; i < s.size(); i++) {
      survivors.put(s.backend(i), Boolean.TRUE);
    }
    // Members before the cursor that were removed pull it down by one each (vdir_remove_backend).
    int moved = cur;
    for (int i = 0; i < Math.min(cur, old.size()); i++) {
      if (!survivors.containsKey(old.backend(i))) {
        moved--;
      }
    }
    if (moved >= s.size()) {
      moved = 0;
    }
    return new Sticky(s, moved);
  }

  @Override
  protected boolean rampsInChoose() {
    return true;
  }

  /** A declined ramping member hands its request to the next member up after it, if any. */
  private int rampedFrom(Snapshot s, int i) {
    if (i < 0 || !anyRamping() || admit(s, i)) {
      return i;
    }
    int n = s.size();
    for (int k = 1; k < n; k++) {
      int j = (i + k) % n;
      if (s.up(j)) {
        return j;
      }
    }
    return i;
  }

  @Override
  public @Nullable Backend choose(Request request) {
    Sticky st = state();
    Snapshot s = st.snapshot();
    if (!sticky) {
      // Without stickiness the walk always starts at 0, so its answer was known at publish.
      int i = rampedFrom(s, s.firstUp());
      return i < 0 ? null : s.backend(i);
    }
    int n = s.size();
    int start = st.cur.get();
    if (start >= n) {
      start = 0;
    }
    int i = start;
    for (int u = 0; u < n; u++) {
      if (s.up(i)) {
        if (i != start) {
          st.cur.set(i);
        }
        return s.backend(rampedFrom(s, i));
      }
      if (++i == n) {
        i = 0;
      }
    }
    return null;
  }

  /** The member the sticky cursor is on (for status output), or {@code null}. */
  public @Nullable Member current() {
    Sticky st = state();
    int c = st.cur.get();
    return c < st.snapshot().size() ? st.snapshot().member(c) : null;
  }
}
