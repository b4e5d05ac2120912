package io.fairway.director;

/**
 * Finds the first running weight sum greater than a target in about one probe, with exactly the
 * answer of a search over the sums (and so of Varnish's linear walk in {@code vdir_pick_be}).
 *
 * <p>Why: a binary search over 100 sums is a chain of 7 dependent loads and compares, most of a
 * weighted pick's cost. Here the target is mapped to one of {@code B} equal-width buckets with a
 * multiply; each bucket stores how many sums are certainly {@code <= } any target in it, and the
 * pick continues from there with the same {@code sum <= target} comparison the search used.
 *
 * <p>Why it is exact whatever the floating-point rounding: the bucket function {@code bucket(x) =
 * clamp((int) (x * scale), 0, B - 1)} is monotone (non-decreasing) in {@code x}, and the start of
 * bucket {@code b} is the number of sums {@code s} with {@code bucket(s) < b}, computed with the
 * very same function. If {@code bucket(s) < bucket(target)} then {@code s <= target} (otherwise
 * monotonicity would give {@code bucket(s) >= bucket(target)}), so every skipped sum would also
 * have been passed by the search. The buckets only decide where the comparisons start, never what
 * they conclude.
 */
final class CumulativeIndex {

  /** At most this many buckets, so a huge director does not get a huge index. */
  private static final int MAX_BUCKETS = 1 << 16;

  private final double[] sums; // running sums, non-decreasing; the last one is the total
  private final int last; // sums.length - 1: the answer when no sum exceeds the target
  private final double scale; // buckets / total
  private final int maxBucket;
  private final int[] start; // per bucket: how many of sums[0 .. last-1] map to a lower bucket

  /** An index over these non-decreasing running sums (not copied; must not change). */
  CumulativeIndex(double[] sums) {
    this.sums = sums;
    this.last = sums.length - 1;
    int n = Math.max(sums.length, 1);
    // About two buckets per sum: most buckets then hold at most one sum, so a pick makes one or
    // two comparisons.
    int buckets = Math.min(MAX_BUCKETS, Integer.highestOneBit(n) << 2);
    double total = sums.length == 0 ? 0.0 : sums[last];
    this.maxBucket = buckets - 1;
    this.scale = total > 0.0 ? buckets / total : 0.0;
    this.start = new int[buckets];
    // sums[last] is never compared (it is the fallback answer), so only 0 .. last-1 are counted.
    int[] below = new int[buckets + 1];
    for (int j = 0; j < last; j++) {
      below[bucket(sums[j]) + 1]++;
    }
    int acc = 0;
    for (int b = 0; b < buckets; b++) {
      acc += below[b];
      start[b] = acc;
    }
  }

  private int bucket(double x) {
    // (int) maps NaN to 0 and saturates infinities; both clamps keep the function monotone.
    int b = (int) (x * scale);
    return b < 0 ? 0 : (b > maxBucket ? maxBucket : b);
  }

  /**
   * The first {@code k} in {@code [0, last)} with {@code target < sums[k]}, or {@code last} if
   * there is none; {@code 0} for a NaN target. The index must not be empty.
   */
  int firstAbove(double target) {
    double[] s = sums;
    int k = start[bucket(target)];
    while (k < last && s[k] <= target) {
      k++;
    }
    return k;
  }
}
