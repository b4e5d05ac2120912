package io.fairway.director.varnish;

import io.fairway.director.AbstractDirector;
import io.fairway.director.Backend;
import io.fairway.director.Member;
import io.fairway.director.RandomSource;
import io.fairway.director.Request;
import io.fairway.director.Snapshot;
import java.util.HashSet;
import java.util.Set;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * Varnish's {@code shard}: a consistent-hash ring. Each member contributes {@code trunc(replicas *
 * weight)} points (a weight below 1 counts as 1, as in Varnish) named by its ident; a key goes to
 * the first point at or after it; down members are skipped in ring order. Adding or removing one of
 * {@code n} members moves only about {@code 1/n} of the keys, which is what keeps caches warm
 * through a deploy.
 *
 * <p>For the same idents, weights, replicas, health and key, the choice is exactly varnishd's
 * (checked against a real varnishd in the tests), including its quirks: a key above the last point
 * does not wrap to the first; a two-point ring always answers index 1; when the walk finds nothing
 * the "previous" host it falls back to follows the C code, not the documentation.
 *
 * <p>{@code alt} asks for the n-th alternative (e.g. the retry number); {@code healthy} decides how
 * health counts while skipping (see {@link ShardHealthy}); {@code rampup} lets a recovered member
 * take load gradually over its rampup duration; {@code warmup} sends a share of requests to the
 * next member so its cache is warm when it takes over.
 *
 * <p>Deviations from Varnish: changes apply immediately as one snapshot (Varnish queues {@code
 * add_backend}/{@code remove_backend} until {@code reconfigure}; a batch here is {@link #update});
 * {@code replicas} is a director setting applied to every member (Varnish 6.5+ fixes each backend's
 * count when it is added); duplicate idents are refused instead of skipped with a notice.
 *
 * <p>Picks allocate nothing: the common case (first host up, no rampup or warmup) is a ring lookup
 * and one health read; the general walk uses a per-thread scratch picklist.
 */
public final class ShardDirector extends AbstractDirector<ShardDirector.Ring> {

  /**
   * Director-wide shard settings.
   *
   * @param replicas points per member at weight 1, {@code >= 1} (Varnish default 67)
   * @param warmup default warmup probability, {@code 0 <= warmup < 1} ({@code set_warmup})
   * @param rampupSeconds default rampup duration, {@code >= 0} ({@code set_rampup})
   * @param defaults default per-pick parameters ({@code associate(param)})
   */
  public record Settings(int replicas, double warmup, double rampupSeconds, ShardParams defaults) {

    /** Varnish's defaults: 67 replicas, no warmup, no rampup, builtin parameters. */
    public static final Settings DEFAULTS = new Settings(67, 0.0, 0.0, ShardParams.DEFAULTS);

    public Settings {
      if (replicas < 1) {
        throw new IllegalArgumentException("replicas must be >= 1, got " + replicas);
      }
      if (!(warmup >= 0 && warmup < 1)) {
        throw new IllegalArgumentException("warmup must be >= 0 and < 1, got " + warmup);
      }
      if (!(rampupSeconds >= 0) || Double.isInfinite(rampupSeconds)) {
        throw new IllegalArgumentException("rampup must be >= 0 seconds, got " + rampupSeconds);
      }
      if (defaults == null) {
        defaults = ShardParams.DEFAULTS;
      }
    }
  }

  /** Published state: the snapshot, its ring, and per-host rampup durations. */
  public static final class Ring extends AbstractDirector.State {
    final ShardRing ring;
    final double[] rampup; // seconds, per host
    final boolean anyRampup;

    Ring(Snapshot s, ShardRing ring, double[] rampup) {
      super(s);
      this.ring = ring;
      this.rampup = rampup;
      boolean any = false;
      for (double r : rampup) {
        any |= r > 0;
      }
      this.anyRampup = any;
    }

    /** The ring this state was built with. */
    public ShardRing ring() {
      return ring;
    }
  }

  private final Settings settings;
  private final RandomSource random;
  private final ThreadLocal<Walk> walks = ThreadLocal.withInitial(Walk::new);

  /** A shard director with Varnish's defaults. */
  public ShardDirector(String name) {
    this(name, Settings.DEFAULTS, null, null);
  }

  /**
   * A shard director.
   *
   * @param random dice for rampup and warmup ({@code null}: per-thread)
   * @param clock nanoseconds for rampup ({@code null}: {@link System#nanoTime()})
   */
  public ShardDirector(
      String name,
      @Nullable Settings settings,
      @Nullable RandomSource random,
      @Nullable LongSupplier clock) {
    super(name, "shard", clock);
    this.settings = settings == null ? Settings.DEFAULTS : settings;
    this.random = random == null ? RandomSource.threadLocal() : random;
    start();
  }

  /** The director-wide settings. */
  public Settings settings() {
    return settings;
  }

  @Override
  protected Ring derive(Snapshot s, @Nullable Ring previous) {
    int n = s.size();
    String[] idents = new String[n];
    int[] reps = new int[n];
    double[] rampup = new double[n];
    Set<String> seen = new HashSet<>();
    for (int h = 0; h < n; h++) {
      Member m = s.member(h);
      idents[h] = m.effectiveIdent();
      if (!seen.add(idents[h])) {
        throw new IllegalArgumentException(
            "duplicate shard ident " + idents[h] + " (member " + m.name() + ")");
      }
      double w = m.weight() >= 1 ? m.weight() : 1.0; // Varnish ignores weights below 1
      double product = settings.replicas() * w;
      reps[h] = (int) Math.min(Integer.MAX_VALUE, product); // truncation toward zero, as C
      rampup[h] = Double.isNaN(m.rampupSeconds()) ? settings.rampupSeconds() : m.rampupSeconds();
    }
    ShardRing ring = ShardRing.build(idents, reps, previous == null ? null : previous.ring);
    return new Ring(s, ring, rampup);
  }

  @Override
  public @Nullable Backend choose(Request request) {
    ShardParams p = request.params() instanceof ShardParams sp ? sp : settings.defaults();
    long key = request.hasKey() ? request.key() : key(p.by(), request);
    // A request's own alt (even 0) overrides the parameter set's, as a VCL alt= argument does.
    int alt = request.hasAlt() ? request.alt() : p.alt();
    return pick(key, alt, p);
  }

  /** The key a request yields under a key mode (when it carries no precomputed key). */
  public static long key(ShardBy by, Request request) {
    if (by == ShardBy.BLOB) {
      return VarnishHash.blobKey(request.blob());
    }
    // HASH in client context is URL in Varnish; KEY without a key hashes the string like
    // shard.key(string).
    return VarnishHash.hash32(request.keyString());
  }

  /**
   * Varnish's {@code sharddir_pick_be}: the member for an unsigned 32-bit key, {@code alt}-th
   * alternative, with these parameters ({@code p.alt()} is ignored in favour of {@code alt}).
   * Returns {@code null} when there are no members or the walk finds none.
   */
  public @Nullable Backend pick(long key, int alt, ShardParams p) {
    Ring st = state();
    Snapshot s = st.snapshot();
    int nb = s.size();
    if (nb == 0) {
      return null;
    }
    if (alt > nb - 1) {
      alt = nb - 1;
    }
    ShardRing ring = st.ring;
    int idx = ring.lookup(key);
    ShardHealthy healthy = p.healthy();
    double warmup = p.warmup() == -1 ? settings.warmup() : p.warmup();

    // Common case, same answer as the walk below without touching the picklist: first choice
    // wanted, its host qualifies, and neither rampup nor warmup can move it.
    if (alt == 0) {
      int c = ring.host(idx);
      if (healthy == ShardHealthy.IGNORE) {
        return s.backend(c);
      }
      if (s.up(c) && warmup == 0 && (!p.rampup() || !st.anyRampup)) {
        return s.backend(c);
      }
    }
    return walk(st, idx, alt, warmup, p.rampup(), healthy);
  }

  private @Nullable Backend walk(
      Ring st, int idx, int alt, double warmup, boolean rampup, ShardHealthy healthy) {
    Walk w = walks.get();
    w.reset(st, idx);
    try {
      return walkFrom(w, st, alt, warmup, rampup, healthy);
    } finally {
      w.st = null; // do not keep an old ring alive from a thread-local
    }
  }

  private @Nullable Backend walkFrom(
      Walk w, Ring st, int alt, double warmup, boolean rampup, ShardHealthy healthy) {
    Snapshot s = st.snapshot();
    if (alt > 0 && w.next(alt - 1, healthy == ShardHealthy.ALL) == -1) {
      return w.previous >= 0 ? s.backend(w.previous) : null;
    }
    if (w.next(0, healthy != ShardHealthy.IGNORE) == -1) {
      return w.previous >= 0 ? s.backend(w.previous) : null;
    }
    Backend be = s.backend(w.last);
    if (alt > 0
        || healthy == ShardHealthy.IGNORE
        || (!rampup && warmup == 0)
        || w.next(0, true) == -1) {
      return be;
    }
    // previous = chosen host C, last = next healthy alternative A
    double now = clock.getAsLong() * 1e-9;
    double chosenR = st.rampup[w.previous];
    double altR = st.rampup[w.last];
    double sinceC = now - w.previousChanged * 1e-9;
    if (sinceC < chosenR) {
      // C is in rampup: keep it unless rampup is wanted, A is not in rampup, and the dice say so
      if (!rampup || now - w.lastChanged * 1e-9 < altR || random.nextDouble() * chosenR < sinceC) {
        return be;
      }
    } else if (warmup == 0 || random.nextDouble() > warmup) {
      return be;
    }
    return s.backend(w.last);
  }

  /**
   * One pick's walk state ({@code struct shard_state}): the ring position, the picklist of hosts
   * already considered, and the {@code previous}/{@code last} slots. Reused per thread; the
   * picklist is a generation-stamped array so resetting it is O(1).
   */
  private static final class Walk {
    private int[] stamp = new int[0];
    private int gen;
    private @Nullable Ring st;
    private int idx;
    private int pickcount;
    int previous;
    long previousChanged;
    int last;
    long lastChanged;

    void reset(Ring state, int index) {
      st = state;
      idx = index;
      pickcount = 0;
      previous = -1;
      last = -1;
      int n = state.snapshot().size();
      if (stamp.length < n) {
        stamp = new int[Math.max(n, stamp.length * 2)];
        gen = 0;
      }
      if (++gen == 0) { // wrapped: clear so no stale stamp matches
        java.util.Arrays.fill(stamp, 0);
        gen = 1;
      }
    }

    /** {@code shard_next}, ported literally. */
    int next(int skip, boolean healthyOnly) {
      // Set by reset() for the walk under way; cleared only after it.
      Ring st = java.util.Objects.requireNonNull(this.st);
      Snapshot s = st.snapshot();
      ShardRing ring = st.ring;
      int nb = s.size();
      int np = ring.size();
      if (pickcount >= nb) {
        return -1;
      }
      int chosen = -1;
      while (pickcount < nb && skip >= 0) {
        int c = ring.host(idx);
        if (stamp[c] != gen) {
          stamp[c] = gen;
          pickcount++;
          long changed = s.member(c).changedNanos();
          int slot = 0; // 0 none, 1 previous, 2 last
          if (s.up(c)) {
            if (skip-- == 0) {
              chosen = c;
              slot = 2;
            } else {
              slot = 1;
            }
          } else if (!healthyOnly && skip-- == 0) {
            chosen = c;
            slot = 2;
          }
          if (slot == 2 && last >= 0) {
            previous = last;
            previousChanged = lastChanged;
          }
          if (slot == 1) {
            previous = c;
            previousChanged = changed;
          } else if (slot == 2) {
            last = c;
            lastChanged = changed;
          }
          if (chosen != -1) {
            break;
          }
        }
        if (++idx == np) {
          idx = 0;
        }
      }
      return chosen;
    }
  }
}
