package io.fairway.plan;

import io.fairway.director.AbstractDirector;
import io.fairway.director.Backend;
import io.fairway.director.Member;
import io.fairway.director.RandomSource;
import io.fairway.director.varnish.FallbackDirector;
import io.fairway.director.varnish.HashDirector;
import io.fairway.director.varnish.RandomDirector;
import io.fairway.director.varnish.RoundRobinDirector;
import io.fairway.director.varnish.ShardDirector;
import io.fairway.director.varnish.ShardParams;
import org.jspecify.annotations.Nullable;

/**
 * Builds the Varnish director a plan describes, and its members: the one place that turns a {@link
 * Selection.Varnish} into a director, so {@code fairway pick}, the userspace data plane and the
 * plan's own validation build the same ring from the same names, idents and weights. {@link
 * DirectorTree} builds a layered one from these.
 */
public final class DirectorFactory {
  private DirectorFactory() {}

  /**
   * A director with no members.
   *
   * @param random the random director's generator ({@code null}: a per-thread one)
   * @throws IllegalArgumentException a parameter the director library refuses
   */
  public static AbstractDirector<?> create(
      String name, Selection.Varnish s, @Nullable RandomSource random) {
    return create(name, s, random, null);
  }

  /**
   * The same, on a given nanosecond clock (health change times, shard rampup, slow start): {@code
   * fairway pick} fixes it so a what-if ramp stays where it was put; {@code null} for the system's.
   */
  public static AbstractDirector<?> create(
      String name,
      Selection.Varnish s,
      @Nullable RandomSource random,
      java.util.function.@Nullable LongSupplier clock) {
    if (s instanceof Selection.Layered l) {
      // The top alone; DirectorTree builds the layers under it.
      return create(name, l.top(), random, clock);
    }
    if (s instanceof Selection.RoundRobin) {
      return new RoundRobinDirector(name, clock);
    }
    if (s instanceof Selection.Random) {
      return new RandomDirector(name, random == null ? RandomSource.threadLocal() : random, clock);
    }
    if (s instanceof Selection.Fallback f) {
      return new FallbackDirector(name, f.sticky(), clock);
    }
    if (s instanceof Selection.Hash) {
      return new HashDirector(name, clock);
    }
    Selection.Shard sh = (Selection.Shard) s;
    // warmup as the per-call parameter (Varnish's shard_param warmup=), which takes 0..1;
    // set_warmup() would ignore 1.0 ("always warm the next member"), a valid operator choice.
    // The associated set (already merged with the service's own settings) is the director's
    // default parameter set, Varnish's associate(): a request's alt overrides its alt.
    ShardParams params =
        new ShardParams(sh.by(), sh.healthy(), sh.rampupOn(), sh.warmup(), sh.alt());
    return new ShardDirector(
        name,
        new ShardDirector.Settings(sh.replicas(), 0, sh.rampupSeconds(), params),
        null,
        clock);
  }

  /** A member as the plan describes it: its weight (decimal) and ring identity. */
  public static Member member(MemberPlan m, Backend backend, boolean healthy) {
    Member base = Member.of(backend, m.weight()).withIdent(m.ident());
    return healthy ? base : base.withHealth(false, 0);
  }
}
