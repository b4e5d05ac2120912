package io.fairway.director.varnish;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * The shard director's consistent-hash ring, built exactly as Varnish's {@code
 * shardcfg_hashcircle}: host {@code h} gets {@code min(replicas_h, (2^32-2)/n)} points, point
 * {@code j} (from 0) is {@code HashStrands32(ident + j)}, sorted as unsigned values; equal points
 * keep (host, replica) order, as glibc's stable qsort does.
 *
 * <p>Points are stored with the top bit flipped so that a signed {@code int} comparison orders
 * them as unsigned: the lookup is a plain binary search over an {@code int[]}, which is as cheap
 * as a ring lookup can be.
 *
 * <p>Immutable. Each host's points depend only on its ident and replica count, so they are cached
 * across rebuilds: adding one host to a thousand hashes only the new host's points.
 */
public final class ShardRing {

  private static final int BIAS = 0x8000_0000;

  private final int[] points; // biased
  private final int[] hosts;
  private final String[] idents;
  private final int[] replicas;
  private final Map<String, int[]> pointCache; // ident -> raw points for j = 0..len-1

  private ShardRing(
      int[] points, int[] hosts, String[] idents, int[] replicas, Map<String, int[]> cache) {
    this.points = points;
    this.hosts = hosts;
    this.idents = idents;
    this.replicas = replicas;
    this.pointCache = cache;
  }

  /**
   * Builds a ring for hosts with these idents and per-host replica counts (already {@code
   * trunc(replicas * weight)}); {@code previous} (may be {@code null}) lends its cached points.
   */
  public static ShardRing build(String[] idents, int[] replicas, ShardRing previous) {
    int n = idents.length;
    if (previous != null
        && Arrays.equals(previous.idents, idents)
        && Arrays.equals(previous.replicas, replicas)) {
      return previous;
    }
    long rmax = n == 0 ? 0 : 0xFFFF_FFFEL / n;
    int[] r = new int[n];
    long total = 0;
    for (int h = 0; h < n; h++) {
      r[h] = (int) Math.min(replicas[h], rmax);
      total += r[h];
    }
    if (total > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("shard ring too large: " + total + " points");
    }
    Map<String, int[]> oldCache = previous == null ? Map.of() : previous.pointCache;
    Map<String, int[]> cache = new HashMap<>(n * 2);
    long[] keyed = new long[(int) total];
    int[] hostOfSeq = new int[(int) total];
    int seq = 0;
    for (int h = 0; h < n; h++) {
      int[] raw = cache.get(idents[h]);
      if (raw == null || raw.length < r[h]) {
        raw = oldCache.get(idents[h]);
        if (raw == null || raw.length < r[h]) {
          raw = hashPoints(idents[h], r[h]);
        }
        cache.put(idents[h], raw);
      }
      for (int j = 0; j < r[h]; j++) {
        // High half: the biased point (signed order == unsigned point order); low half: the
        // insertion sequence, so ties keep (host, replica) order like a stable sort.
        keyed[seq] = ((long) (raw[j] ^ BIAS) << 32) | seq;
        hostOfSeq[seq] = h;
        seq++;
      }
    }
    Arrays.sort(keyed);
    int[] pts = new int[keyed.length];
    int[] hs = new int[keyed.length];
    for (int i = 0; i < keyed.length; i++) {
      pts[i] = (int) (keyed[i] >> 32);
      hs[i] = hostOfSeq[(int) keyed[i]];
    }
    return new ShardRing(pts, hs, idents.clone(), replicas.clone(), cache);
  }

  private static int[] hashPoints(String ident, int count) {
    int[] raw = new int[count];
    for (int j = 0; j < count; j++) {
      raw[j] = (int) VarnishHash.ringPoint(ident, j);
    }
    return raw;
  }

  /** Number of points on the ring. */
  public int size() {
    return points.length;
  }

  /** The i-th point as an unsigned value. */
  public long point(int i) {
    return Integer.toUnsignedLong(points[i] ^ BIAS);
  }

  /** The host index (position in the director's member list) owning the i-th point. */
  public int host(int i) {
    return hosts[i];
  }

  /** The raw ring arrays, for benchmarks comparing against a bare binary search. */
  int[] biasedPoints() {
    return points;
  }

  /**
   * Varnish's {@code shard_lookup}, ported literally: the first point {@code >= key}, but a key
   * above every point gives the <em>last</em> index (no wrap to 0), and a ring of exactly two
   * points always gives index 1. {@code key} is unsigned 32-bit. The ring must not be empty.
   */
  public int lookup(long key) {
    final int[] p = points;
    final int k = (int) key ^ BIAS;
    final int n = p.length;
    int low = 0;
    int high = n;
    while (true) {
      int i = (high + low) >>> 1;
      int pi = p[i];
      if (pi == k) {
        return i;
      }
      if (i == n - 1) {
        return n - 1;
      }
      if (pi < k && p[i + 1] >= k) {
        return i + 1;
      }
      if (pi > k) {
        if (i == 0) {
          return 0;
        }
        high = i;
      } else {
        low = i;
      }
    }
  }
}
