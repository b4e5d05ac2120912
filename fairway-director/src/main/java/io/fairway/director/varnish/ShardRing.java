package io.fairway.director.varnish;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The shard director's consistent-hash ring, built exactly as Varnish's {@code
 * shardcfg_hashcircle}: host {@code h} gets {@code min(replicas_h, (2^32-2)/n)} points, point
 * {@code j} (from 0) is {@code HashStrands32(ident + j)}, sorted as unsigned values; equal points
 * keep (host, replica) order, as glibc's stable qsort does.
 *
 * <p>Points are stored with the top bit flipped so that a signed comparison orders them as
 * unsigned, each in one {@code long} with its host: the lookup is a branch-free binary search over
 * one array, and the host comes from the entry it lands on.
 *
 * <p>Immutable. Each host's points depend only on its ident and replica count, so they are cached
 * across rebuilds: adding one host to a thousand hashes only the new host's points.
 */
public final class ShardRing {

  private static final int BIAS = 0x8000_0000;

  // One long per point: the biased point in the high half, the host index in the low half. The
  // sort order of these longs is exactly Varnish's ring order (point, then host), and a lookup
  // reads the point and its host from the same cache line.
  private final long[] entries;
  private final String[] idents;
  private final int[] replicas;
  private final Map<String, int[]> pointCache; // ident -> raw points for j = 0..len-1

  private ShardRing(long[] entries, String[] idents, int[] replicas, Map<String, int[]> cache) {
    this.entries = entries;
    this.idents = idents;
    this.replicas = replicas;
    this.pointCache = cache;
  }

  /**
   * Builds a ring for hosts with these idents and per-host replica counts (already {@code
   * trunc(replicas * weight)}); {@code previous} (may be {@code null}) lends its cached points.
   */
  public static ShardRing build(String[] idents, int[] replicas, @Nullable ShardRing previous) {
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
    for (int i = 0; i < keyed.length; i++) {
      keyed[i] = (keyed[i] & 0xFFFF_FFFF_0000_0000L) | hostOfSeq[(int) keyed[i]];
    }
    return new ShardRing(keyed, idents.clone(), replicas.clone(), cache);
  }

  private static int[] hashPoints(String ident, int count) {
    return VarnishHash.ringPoints(ident, count);
  }

  /** Number of points on the ring. */
  public int size() {
    return entries.length;
  }

  /** The i-th point as an unsigned value. */
  public long point(int i) {
    return Integer.toUnsignedLong((int) (entries[i] >> 32) ^ BIAS);
  }

  /** The host index (position in the director's member list) owning the i-th point. */
  public int host(int i) {
    return (int) entries[i];
  }

  /**
   * Varnish's {@code shard_lookup}: the first point {@code >= key}, but a key above every point
   * gives the <em>last</em> index (no wrap to 0), and a ring of exactly two points always gives
   * index 1. {@code key} is unsigned 32-bit. The ring must not be empty.
   *
   * <p>For distinct points that is a lower bound, done here without data-dependent branches so the
   * CPU does not mispredict half the steps. Only when the key equals a point that occurs more than
   * once does Varnish's answer depend on its probe order; then the literal port decides.
   */
  public int lookup(long key) {
    final long[] e = entries;
    final int k = (int) key ^ BIAS;
    final long k64 = (long) k << 32; // the smallest entry whose point is >= key
    final int n = e.length;
    if (n == 2) {
      return 1;
    }
    int lo = 0;
    int len = n;
    while (len > 1) {
      int half = len >>> 1;
      lo = e[lo + half - 1] < k64 ? lo + half : lo;
      len -= half;
    }
    // lo is now the lower bound, or n-1 when every point is below the key
    if ((int) (e[lo] >> 32) == k
        && ((lo + 1 < n && (int) (e[lo + 1] >> 32) == k)
            || (lo > 0 && (int) (e[lo - 1] >> 32) == k))) {
      return literalLookup(key);
    }
    return lo;
  }

  /** Varnish's {@code shard_lookup}, ported literally (the reference for {@link #lookup}). */
  int literalLookup(long key) {
    final long[] e = entries;
    final int k = (int) key ^ BIAS;
    final int n = e.length;
    int low = 0;
    int high = n;
    while (true) {
      int i = (high + low) >>> 1;
      int pi = (int) (e[i] >> 32);
      if (pi == k) {
        return i;
      }
      if (i == n - 1) {
        return n - 1;
      }
      if (pi < k && (int) (e[i + 1] >> 32) >= k) {
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

  /** A ring over raw points (unsorted input is sorted), for tests of the lookup. */
  static ShardRing ofPoints(long[] rawPoints) {
    long[] keyed = new long[rawPoints.length];
    for (int i = 0; i < rawPoints.length; i++) {
      keyed[i] = ((long) ((int) rawPoints[i] ^ BIAS) << 32) | i;
    }
    java.util.Arrays.sort(keyed);
    return new ShardRing(keyed, new String[0], new int[0], Map.of());
  }
}
