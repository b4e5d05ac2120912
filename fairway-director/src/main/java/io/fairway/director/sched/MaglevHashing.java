package io.fairway.director.sched;

import java.util.BitSet;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * {@code mh} (ip_vs_mh.c): Maglev consistent hashing. Each server gets a permutation of the table
 * slots from two SipHash-1-3 hashes of its address and port (fixed keys, so every node builds the
 * same table), and servers take turns claiming their next free preferred slot, {@code weight / gcd
 * >> rshift} slots per turn. The table is built from each server's last non-zero weight, so
 * quiescing a server (weight 0) does not reshuffle anybody else.
 *
 * <p>Kernel-exact by default (4093 slots, the kernel's {@code CONFIG_IP_VS_MH_TAB_INDEX=12}).
 * Beyond the kernel, for the userspace data plane only: another prime table size, and a
 * bounded-load factor (HAProxy's {@code hash_balance_factor}) under which a server already above
 * {@code factor%} of the mean load is skipped along the same probe sequence {@code mh-fallback}
 * uses.
 */
final class MaglevHashing implements KernelScheduler {
  static final int[] PRIMES = {251, 509, 1021, 2039, 4093, 8191, 16381, 32749, 65521, 131071};
  static final int KERNEL_TABLE_SIZE = 4093;
  private static final long KEY1 = 2654435761L;
  private static final long KEY2 = 2654446892L;

  private final boolean fallback;
  private final boolean usePort;
  private final int size;
  private final int tabBits;
  private final int balanceFactor;
  private volatile State state;

  /** The lookup table and the servers it was filled from, published together. */
  private static final class State {
    final SchedDest[] lookup;
    final SchedDest[] dests;

    State(SchedDest[] lookup, SchedDest[] dests) {
      this.lookup = lookup;
      this.dests = dests;
    }
  }

  MaglevHashing(boolean fallback, boolean usePort) {
    this(fallback, usePort, KERNEL_TABLE_SIZE, 0);
  }

  /**
   * @param tableSize a prime; 4093 is what the kernel uses
   * @param balanceFactor 0 for kernel behaviour, else a percentage ≥ 100 bounding a server's load
   */
  MaglevHashing(boolean fallback, boolean usePort, int tableSize, int balanceFactor) {
    if (!isPrime(tableSize))
      throw new IllegalArgumentException("mh table size " + tableSize + " is not a prime");
    if (balanceFactor != 0 && balanceFactor < 100) {
      throw new IllegalArgumentException(
          "hash_balance_factor " + balanceFactor + " must be 0 or at least 100");
    }
    this.fallback = fallback;
    this.usePort = usePort;
    this.size = tableSize;
    int idx = 0;
    for (int i = 0; i < PRIMES.length; i++) if (PRIMES[i] <= tableSize) idx = i;
    this.tabBits = (idx + 8) / 2;
    this.balanceFactor = balanceFactor;
    this.state = new State(new SchedDest[tableSize], new SchedDest[0]);
  }

  static boolean isPrime(int n) {
    if (n < 2) return false;
    for (int i = 2; (long) i * i <= n; i++) if (n % i == 0) return false;
    return true;
  }

  @Override
  public String name() {
    return "mh";
  }

  static int hashKey(int fold, int port, long key, int offset) {
    return KernelHash.hsiphash32(offset + port + fold, key, key);
  }

  private int slot(int h) {
    return (int) (Integer.toUnsignedLong(h) % size);
  }

  @Override
  public void update(List<SchedDest> kernelOrder) {
    SchedDest[] dests = kernelOrder.toArray(new SchedDest[0]);
    SchedDest[] lookup = new SchedDest[size];
    if (dests.length > size)
      throw new IllegalArgumentException("mh: more servers than table slots");
    int gcd = 0;
    int max = 0;
    for (SchedDest d : dests) {
      int w = d.lastWeight();
      if (w > 0) gcd = gcd > 0 ? WeightedRoundRobin.gcd(w, gcd) : w;
      if (w > max) max = w;
    }
    if (gcd >= 1) {
      int shift = (32 - Integer.numberOfLeadingZeros(max / gcd)) - tabBits;
      int rshift = Math.max(shift, 0);
      int n = dests.length;
      int[] perm = new int[n];
      int[] skip = new int[n];
      int[] turns = new int[n];
      for (int i = 0; i < n; i++) {
        SchedDest d = dests[i];
        int fold = AddressFold.fold(d.address());
        perm[i] = slot(hashKey(fold, d.port(), KEY1, 0));
        skip[i] = (int) (Integer.toUnsignedLong(hashKey(fold, d.port(), KEY2, 0)) % (size - 1)) + 1;
        int lw = d.lastWeight();
        int t = (lw / gcd) >> rshift;
        turns[i] = t != 0 ? t : (lw != 0 ? 1 : 0);
      }
      BitSet taken = new BitSet(size);
      int filled = 0;
      int dtCount = 0;
      fill:
      while (true) {
        for (int i = 0; i < n; ) {
          if (turns[i] < 1) {
            i++;
            continue;
          }
          int c = perm[i];
          while (taken.get(c)) {
            perm[i] += skip[i];
            if (perm[i] >= size) perm[i] -= size;
            c = perm[i];
          }
          taken.set(c);
          lookup[c] = dests[i];
          if (++filled == size) break fill;
          if (++dtCount >= turns[i]) {
            dtCount = 0;
            i++;
          }
        }
      }
    }
    state = new State(lookup, dests);
  }

  private static boolean unavailable(SchedDest d) {
    return d.weight() <= 0 || d.overloaded();
  }

  @Override
  public @Nullable SchedDest pick(int clientFold, int clientPort, int destinationFold) {
    State s = state;
    SchedDest[] lookup = s.lookup;
    int fold = clientFold;
    int port = usePort ? clientPort : 0;
    int ihash = slot(hashKey(fold, port, KEY1, 0));
    SchedDest d = lookup[ihash];
    if (d == null) return null;
    long bound = balanceFactor == 0 ? Long.MAX_VALUE : loadBound(s.dests);
    if (!unavailable(d) && d.totalConns() < bound) return d;
    // Without mh-fallback an unavailable owner means no destination, as in the kernel; the load
    // bound only
    // moves connections away from an owner that is usable but too busy.
    if (unavailable(d) ? !fallback : balanceFactor == 0) return null;
    for (int offset = 0; offset < size; offset++) {
      int roffset = (offset + ihash) % size;
      d = lookup[slot(hashKey(fold, port, KEY1, roffset))];
      if (d == null) break;
      if (!unavailable(d) && d.totalConns() < bound) return d;
    }
    return null;
  }

  /**
   * Bounded-load consistent hashing (Mirrokni et al., as in HAProxy and Envoy): a server may take
   * the new connection only while its load stays under {@code ceil(factor% × (total + 1) /
   * servers)}.
   */
  private long loadBound(SchedDest[] dests) {
    long total = 1;
    int usable = 0;
    for (SchedDest d : dests) {
      if (unavailable(d)) continue;
      total += d.totalConns();
      usable++;
    }
    if (usable == 0) return Long.MAX_VALUE;
    return (total * balanceFactor + 100L * usable - 1) / (100L * usable);
  }

  int tableSize() {
    return size;
  }

  /** The server owning each slot (null for empty), for the balance/disruption simulator. */
  SchedDest[] lookupTable() {
    return state.lookup.clone();
  }
}
