package io.fairway.vrrp.state;

/**
 * keepalived's priority arithmetic for tracked scripts, interfaces and files (vrrp_track.c): a
 * positive weight adds while the object is good, a negative one subtracts while it is failed;
 * {@code reverse} swaps the two; weight 0 means the object puts the instance in FAULT instead
 * (while failed, or while good with reverse).
 */
public final class Priority {
  private Priority() {}

  /** What one tracked object adds to the base priority. */
  public static int contribution(int weight, boolean reverse, boolean ok) {
    int m = reverse ? -1 : 1;
    if (weight > 0) {
      return ok ? weight * m : 0;
    }
    return ok ? 0 : weight * m;
  }

  /** True when a weight 0 object in this state faults the instance. */
  public static boolean faults(int weight, boolean reverse, boolean ok) {
    return weight == 0 && ok == reverse;
  }

  /** The effective priority: the address owner stays 255, others are held within 1..254. */
  public static int effective(int base, int sumOfContributions) {
    if (base == 255) {
      return 255;
    }
    return Math.max(1, Math.min(254, base + sumOfContributions));
  }
}
