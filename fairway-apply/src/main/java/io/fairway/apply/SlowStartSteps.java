package io.fairway.apply;

/**
 * Slow start on a table that knows only weights (the kernel's IPVS): a server that comes up takes
 * its share progressively by having its weight stepped from low to its target over {@code
 * slow_start}, in at most {@link #MAX_STEPS} steps, so a ramp costs a bounded number of {@code
 * SET_DEST} calls however long it is.
 *
 * <p>Step k of n (k = 1..n, n = min(target, MAX_STEPS)) starts at (k-1)/n of the duration with
 * weight ceil(target * k / n): the first step is at least 1 (weight 0 would quiesce the server, the
 * opposite of bringing it in), the last is the target. Every scheduler that reads weights (wrr,
 * wlc, sed, fo, ovf, sh, mh...) then gives the server a growing share; the kernel's rr and lc
 * ignore weights above zero, so for them a kernel ramp has no effect (documented). The userspace
 * table ramps in its scheduler instead ({@link io.fairway.table.RampTarget}). Public for {@code
 * fairway pick}, which shows what the kernel plane's table weight would be.
 */
public final class SlowStartSteps {
  /** At most this many weight changes per ramp (the first one is the install). */
  static final int MAX_STEPS = 10;

  private SlowStartSteps() {}

  /**
   * The weight at {@code elapsed} nanoseconds into a ramp of {@code duration} towards {@code
   * target}.
   */
  public static int weight(int target, long elapsed, long duration) {
    if (target <= 1 || duration <= 0 || elapsed >= duration) {
      return target;
    }
    int steps = steps(target);
    long k = step(elapsed, duration, steps);
    return (int) Math.max(1, ((long) target * k + steps - 1) / steps);
  }

  /** Whether the ramp is over at {@code elapsed}. */
  static boolean done(int target, long elapsed, long duration) {
    return target <= 1 || duration <= 0 || elapsed >= duration;
  }

  static int steps(int target) {
    return Math.max(1, Math.min(target, MAX_STEPS));
  }

  /** The step (1..steps) at {@code elapsed}; in double, since elapsed x steps can pass 2^63. */
  private static long step(long elapsed, long duration, int steps) {
    long k = (long) Math.floor((double) Math.max(0, elapsed) / duration * steps) + 1;
    return Math.min(steps, k);
  }
}
