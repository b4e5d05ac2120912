package io.fairway.director.sched;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * {@code sh} (ip_vs_sh.c): a 256-bucket table filled with the servers in list order, each taking
 * {@code weight} consecutive buckets (at least one, even at weight 0), indexed by {@code
 * hash_32(port + addr_fold, 8)} of the client. Without {@code sh-fallback} a client whose bucket
 * holds a quiesced or overloaded server gets nothing — that is the point of sh for caches: the
 * client must not silently move. With it, the kernel probes further buckets. {@code sh-port} adds
 * the client's source port to the key.
 */
final class SourceHashing implements KernelScheduler {
  static final int TAB_BITS = 8;
  static final int TAB_SIZE = 1 << TAB_BITS;
  static final int TAB_MASK = TAB_SIZE - 1;

  private final boolean fallback;
  private final boolean usePort;
  private volatile SchedDest[] buckets = new SchedDest[TAB_SIZE];

  SourceHashing(boolean fallback, boolean usePort) {
    this.fallback = fallback;
    this.usePort = usePort;
  }

  @Override
  public String name() {
    return "sh";
  }

  @Override
  public void update(List<SchedDest> kernelOrder) {
    SchedDest[] b = new SchedDest[TAB_SIZE];
    if (!kernelOrder.isEmpty()) {
      int p = 0;
      int count = 0;
      for (int i = 0; i < TAB_SIZE; i++) {
        SchedDest d = kernelOrder.get(p);
        b[i] = d;
        if (++count >= d.weight()) {
          p = (p + 1) % kernelOrder.size();
          count = 0;
        }
      }
    }
    buckets = b;
  }

  static int hashKey(int fold, int port, int offset) {
    return (offset + KernelHash.hash32(port + fold, TAB_BITS)) & TAB_MASK;
  }

  private static boolean unavailable(SchedDest d) {
    return d.weight() <= 0 || d.overloaded();
  }

  /**
   * The bucket index the kernel computes for this flow (exposed for tests and {@code fairway
   * pick}).
   */
  int bucket(Flow flow) {
    return hashKey(flow.clientFold(), usePort ? flow.clientPort() : 0, 0);
  }

  SchedDest[] lookupTable() {
    return buckets.clone();
  }

  @Override
  public @Nullable SchedDest pick(int clientFold, int clientPort, int destinationFold) {
    SchedDest[] b = buckets;
    int fold = clientFold;
    int port = usePort ? clientPort : 0;
    int ihash = hashKey(fold, port, 0);
    SchedDest d = b[ihash];
    if (d == null) return null;
    if (!unavailable(d)) return d;
    if (!fallback) return null;
    for (int offset = 0; offset < TAB_SIZE; offset++) {
      int roffset = (offset + ihash) % TAB_SIZE;
      d = b[hashKey(fold, port, roffset)];
      if (d == null) break;
      if (!unavailable(d)) return d;
    }
    return null;
  }
}
