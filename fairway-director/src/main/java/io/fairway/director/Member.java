package io.fairway.director;

import org.jspecify.annotations.Nullable;

/**
 * One member of a director as of one snapshot: which backend, with what weight, and whether it is
 * up. Immutable; a change is a new {@code Member} in a new snapshot.
 *
 * @param backend the real server or nested director
 * @param weight relative share for weighted algorithms (random, hash, shard replicas factor,
 *     wrr/wlc...); must be finite and {@code >= 0}. Zero means "never chosen" for weighted
 *     algorithms, which is how an operator drains a server.
 * @param healthy the health verdict for this member. For a nested director the effective health is
 *     this flag AND the nested director's own {@link Director#healthy()}.
 * @param changedNanos when {@code healthy} last changed, in the director's clock ({@link
 *     System#nanoTime()} unless a test clock is given); shard rampup measures from here
 * @param ident shard ring identity; {@code null} means "use the name". Lets an operator rename or
 *     readdress a server without moving its keys.
 * @param rampupSeconds this member's shard rampup duration, or {@code NaN} for the director's
 *     default
 */
public record Member(
    Backend backend,
    double weight,
    boolean healthy,
    long changedNanos,
    @Nullable String ident,
    double rampupSeconds) {

  public Member {
    if (backend == null) {
      throw new IllegalArgumentException("member backend must not be null");
    }
    if (!(weight >= 0) || Double.isInfinite(weight)) {
      throw new IllegalArgumentException(
          "weight of " + backend.name() + " must be a finite number >= 0, got " + weight);
    }
    if (ident != null && ident.isEmpty()) {
      ident = null; // Varnish treats ident "" as absent
    }
    if (!Double.isNaN(rampupSeconds) && !(rampupSeconds >= 0)) {
      throw new IllegalArgumentException(
          "rampup of " + backend.name() + " must be >= 0 seconds, got " + rampupSeconds);
    }
  }

  /** A healthy member with weight 1 and no ident or rampup of its own. */
  public static Member of(Backend backend) {
    return new Member(backend, 1.0, true, 0L, null, Double.NaN);
  }

  /** A healthy member with the given weight. */
  public static Member of(Backend backend, double weight) {
    return new Member(backend, weight, true, 0L, null, Double.NaN);
  }

  /** The backend's name. */
  public String name() {
    return backend.name();
  }

  /** The ring identity: {@link #ident()} if set, otherwise the name. */
  public String effectiveIdent() {
    return ident != null ? ident : backend.name();
  }

  /** This member with another weight. */
  public Member withWeight(double w) {
    return new Member(backend, w, healthy, changedNanos, ident, rampupSeconds);
  }

  /**
   * This member with the given health; {@code changedNanos} moves to {@code nowNanos} only if the
   * health actually flips, so repeated identical verdicts do not restart a rampup.
   */
  public Member withHealth(boolean up, long nowNanos) {
    if (up == healthy) {
      return this;
    }
    return new Member(backend, weight, up, nowNanos, ident, rampupSeconds);
  }

  /** This member with another ring identity. */
  public Member withIdent(String id) {
    return new Member(backend, weight, healthy, changedNanos, id, rampupSeconds);
  }

  /** This member with its own rampup duration ({@code NaN} = director default). */
  public Member withRampup(double seconds) {
    return new Member(backend, weight, healthy, changedNanos, ident, seconds);
  }

  /** This member with another changed time (e.g. its creation time when added). */
  public Member withChanged(long nanos) {
    return new Member(backend, weight, healthy, nanos, ident, rampupSeconds);
  }
}
