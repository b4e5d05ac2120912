package io.fairway.director.sched;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * {@code dh} (ip_vs_dh.c): a 256-bucket table holding the servers round-robin (weights do not
 * matter), indexed by {@code hash_32(addr_fold, 8)} of the packet's destination — so one cache
 * server owns each origin address. There is no fallback: a quiesced or overloaded owner means no
 * destination.
 */
final class DestinationHashing implements KernelScheduler {
  private volatile SchedDest[] buckets = new SchedDest[SourceHashing.TAB_SIZE];

  @Override
  public String name() {
    return "dh";
  }

  @Override
  public void update(List<SchedDest> kernelOrder) {
    SchedDest[] b = new SchedDest[SourceHashing.TAB_SIZE];
    if (!kernelOrder.isEmpty()) {
      for (int i = 0; i < b.length; i++) b[i] = kernelOrder.get(i % kernelOrder.size());
    }
    buckets = b;
  }

  @Override
  public @Nullable SchedDest pick(int clientFold, int clientPort, int destinationFold) {
    SchedDest d = buckets[KernelHash.hash32(destinationFold, SourceHashing.TAB_BITS)];
    if (d == null || !d.available() || d.weight() <= 0 || d.overloaded()) return null;
    return d;
  }
}
