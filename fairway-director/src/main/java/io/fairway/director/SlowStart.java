package io.fairway.director;

/**
 * Slow start in the scheduler itself: a member that came up {@code elapsed} into a ramp of {@code
 * duration} takes the fraction {@code f = elapsed / duration} of the share its weight would give
 * it, growing in {@link #STEPS} equal steps, and exactly its full share once the ramp is over.
 *
 * <p>Why steps of 1% rather than a continuous {@code f}: a weighted scheduler (the kernel's wrr,
 * wlc...) derives tables from its weights, so every change of an effective weight is a rebuild. One
 * hundred rebuilds per ramp is a bounded cost however many picks happen, and 1% is finer than any
 * share an operator can observe. Between steps a pick reads one precomputed number.
 *
 * <p>The progress is {@link #units} hundredths, never 0: a ramping member is never shut out
 * entirely (HAProxy's {@code max(1, eweight)}), so a one-server pool still answers.
 *
 * <p>Two ways the families apply it (docs/schedulers.md):
 *
 * <ul>
 *   <li><b>Weighted</b> algorithms compare weights: the ramping member's weight is multiplied by
 *       {@code f}. For integer weights every member is scaled by {@link #STEPS} while anybody ramps
 *       ({@link #scaledWeight}), so a weight-1 member can ramp too; wrr's sequence and wlc's
 *       cross-multiplied comparisons are unchanged by a common factor.
 *   <li><b>Turn-taking</b> algorithms (rr, round_robin, fallback, fo, ovf) ignore weights: a
 *       ramping member keeps a credit that admits it on a fraction {@code f} of the turns it is
 *       chosen ({@link #credit}); a declined turn goes to whoever would have had it without the
 *       member.
 * </ul>
 *
 * <p>Either way a ramping member's share of new connections is {@code f·w / (f·w + rest)}, the
 * share of a member whose weight is {@code f·w}.
 */
public final class SlowStart {
  /** Steps per ramp, and the scale of {@link #units}: 100 = 1% each. */
  public static final int STEPS = 100;

  private SlowStart() {}

  /**
   * The ramp's progress in hundredths, {@code 1 .. STEPS}: {@code floor(f · STEPS)}, at least 1;
   * {@code STEPS} once {@code elapsed >= duration} (or without a ramp, {@code duration <= 0}).
   */
  public static int units(long elapsedNanos, long durationNanos) {
    if (durationNanos <= 0 || elapsedNanos >= durationNanos) {
      return STEPS;
    }
    if (elapsedNanos <= 0) {
      return 1;
    }
    // In double: elapsed x STEPS passes 2^63 for ramps longer than about 2.9 years.
    long u = (long) ((double) elapsedNanos / durationNanos * STEPS);
    return (int) Math.max(1, Math.min(STEPS, u));
  }

  /**
   * How far into the ramp the next step starts, in nanoseconds: where {@link #units} next changes
   * (or the ramp ends). Never before {@code elapsed + 1}.
   */
  public static long nextStep(long elapsedNanos, long durationNanos) {
    if (durationNanos <= 0 || elapsedNanos >= durationNanos) {
      return Long.MAX_VALUE;
    }
    long k = elapsedNanos <= 0 ? 0 : (long) ((double) elapsedNanos / durationNanos * STEPS);
    long next = (long) Math.ceil((double) durationNanos * (k + 1) / STEPS);
    return Math.max(elapsedNanos + 1, Math.min(next, durationNanos));
  }

  /** The fraction of its share a member at {@code units} takes: {@code units / STEPS}. */
  public static double fraction(int units) {
    return (double) units / STEPS;
  }

  /**
   * The integer weight a weighted scheduler compares while its service has a ramp: the weight times
   * {@link #STEPS} for a member at full share, times {@code units} for a ramping one; 0 stays 0
   * (quiesced), and a ramping member has at least 1. Clamped to {@code int}.
   */
  public static int scaledWeight(int weight, int units) {
    if (weight <= 0) {
      return 0;
    }
    long w = (long) weight * units;
    return (int) Math.max(1, Math.min(Integer.MAX_VALUE, w));
  }

  /**
   * The credit rule of the turn-taking algorithms: adds {@code units} to the credit {@code c} and
   * says whether this turn is admitted (the credit reached {@link #STEPS}, which it then pays).
   * Returns the new credit in the low 31 bits and the verdict in the sign bit, so a caller can keep
   * the credit in a plain {@code int} field without allocating.
   */
  public static int credit(int c, int units) {
    int next = c + units;
    return next >= STEPS ? (next - STEPS) | Integer.MIN_VALUE : next;
  }

  /** Whether a {@link #credit} result admits the turn. */
  public static boolean admitted(int creditResult) {
    return creditResult < 0;
  }

  /** The credit to keep from a {@link #credit} result. */
  public static int remaining(int creditResult) {
    return creditResult & Integer.MAX_VALUE;
  }
}
