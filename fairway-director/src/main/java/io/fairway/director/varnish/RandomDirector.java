package io.fairway.director.varnish;

import io.fairway.director.Backend;
import io.fairway.director.PlainDirector;
import io.fairway.director.RandomSource;
import io.fairway.director.Request;
import io.fairway.director.Snapshot;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * Varnish's {@code random}: each up member gets {@code weight / sum(weights of up members)} of the
 * picks. One 31-bit draw per pick, {@code r = draw * 2^-31}, then the weighted walk of {@link
 * Snapshot#pickWeighted(double)}, as {@code vdir_pick_be}.
 *
 * <p>The random source is injectable: {@link Vrnd} seeded like {@code debug.srandom} reproduces
 * varnishd's exact sequence; production uses a per-thread generator that never contends.
 *
 * <p>Slow start ({@link #ramp}): a draw that lands on a ramping member is kept on the fraction of
 * such draws its ramp has reached and drawn again otherwise (at most {@link #REDRAWS} times, then
 * kept), so its share is about that of a member whose weight is scaled by the ramp. Only while
 * somebody ramps are more draws made than Varnish would.
 */
public final class RandomDirector extends PlainDirector {

  private final RandomSource random;

  /** Redraws per pick while a member ramps; bounded so a pick's cost is too. */
  static final int REDRAWS = 8;

  /** A random director with a per-thread random source. */
  public RandomDirector(String name) {
    this(name, RandomSource.threadLocal(), null);
  }

  /** A random director with the given random source and clock. */
  public RandomDirector(String name, @Nullable RandomSource random, @Nullable LongSupplier clock) {
    super(name, "random", clock);
    this.random = random == null ? RandomSource.threadLocal() : random;
    start();
  }

  @Override
  protected boolean rampsInChoose() {
    return true;
  }

  @Override
  public @Nullable Backend choose(Request request) {
    Snapshot s = state().snapshot();
    // Draw even when nothing is up, as Varnish does, so a seeded sequence stays in step.
    int i = s.pickWeighted(random.next31() * 0x1p-31);
    if (i >= 0 && anyRamping()) {
      for (int k = 0; k < REDRAWS && !admit(s, i); k++) {
        i = s.pickWeighted(random.next31() * 0x1p-31);
      }
    }
    return i < 0 ? null : s.backend(i);
  }
}
