package io.fairway.proxy.table;

/**
 * Events in the last {@code window} seconds, counted in one-second buckets.
 *
 * <p>This is how closed connections stay "inactive" for the schedulers until they expire, as in the
 * kernel, without a timer per connection: at tens of thousands of connections a second a timer each
 * would cost more than the proxying.
 */
final class ExpiringCount {
  private final int window;
  private final long[] stamps;
  private final int[] counts;

  ExpiringCount(int windowSeconds) {
    this.window = Math.max(1, windowSeconds);
    this.stamps = new long[window + 1];
    this.counts = new int[window + 1];
  }

  synchronized void record(long nowNanos) {
    long sec = nowNanos / 1_000_000_000L;
    int i = (int) Math.floorMod(sec, (long) stamps.length);
    if (stamps[i] != sec) {
      stamps[i] = sec;
      counts[i] = 0;
    }
    counts[i]++;
  }

  synchronized int count(long nowNanos) {
    long sec = nowNanos / 1_000_000_000L;
    int sum = 0;
    for (int i = 0; i < stamps.length; i++) {
      if (stamps[i] > sec - window && stamps[i] <= sec && counts[i] > 0) {
        sum += counts[i];
      }
    }
    return sum;
  }
}
