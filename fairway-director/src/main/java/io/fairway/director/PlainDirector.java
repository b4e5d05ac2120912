package io.fairway.director;

import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * A director whose published state is just the member snapshot: round_robin, random and hash derive
 * nothing from it (their picks read the snapshot's precomputed sums directly), so they share this
 * one state type instead of each declaring an identical one.
 */
public abstract class PlainDirector extends AbstractDirector<PlainDirector.Plain> {

  /** Published state: the snapshot alone. */
  public static final class Plain extends AbstractDirector.State {
    Plain(Snapshot s) {
      super(s);
    }
  }

  /**
   * @param name the director's name
   * @param algorithm the algorithm's configured name
   * @param clock nanosecond clock for health change times, {@code null} for the system clock
   */
  protected PlainDirector(String name, String algorithm, @Nullable LongSupplier clock) {
    super(name, algorithm, clock);
  }

  @Override
  protected final Plain derive(Snapshot snapshot, @Nullable Plain previous) {
    return new Plain(snapshot);
  }
}
