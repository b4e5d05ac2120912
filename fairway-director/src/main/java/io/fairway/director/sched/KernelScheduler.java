package io.fairway.director.sched;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One IPVS scheduling algorithm: picks the real server for a <em>new</em> connection, or none.
 *
 * <p>Every implementation follows the kernel's rules: a weight-0 (quiesced) or OVERLOADed server
 * gets no new connection; servers are visited in the kernel's list order, which is the reverse of
 * the order they were added (the kernel inserts at the head), because ties and hash tables depend
 * on that order.
 */
public interface KernelScheduler {

  /** The {@code lb_algo} name. */
  String name();

  /**
   * Called on every membership, weight or threshold change, like the kernel's
   * add_dest/del_dest/upd_dest hooks.
   *
   * @param kernelOrder the servers in the kernel's list order (most recently added first)
   */
  void update(List<SchedDest> kernelOrder);

  /**
   * Many changes at once (a batch, {@link SchedService#beginBatch}): the list they end with, and
   * the changes in the order they were made. It must leave the scheduler exactly as one {@link
   * #update(List)} per change would have. The default, one update on the result, is exact for every
   * scheduler whose state is a function of the list alone; rr and wrr, whose cursor and current
   * weight depend on every hook call, replay the changes.
   */
  default void update(List<SchedDest> kernelOrder, List<MemberChange> changes) {
    update(kernelOrder);
  }

  /**
   * The server for a new connection, or {@code null} when the kernel would answer "no destination
   * available".
   */
  default @Nullable SchedDest schedule(Flow flow) {
    return pick(flow.clientFold(), flow.clientPort(), flow.destinationFold());
  }

  /**
   * {@link #schedule(Flow)} on the flow's precomputed parts, so a caller holding them allocates
   * nothing.
   *
   * @param clientFold the client address folded as the kernel does ({@link Flow})
   * @param clientPort the client's source port (sh-port, mh-port)
   * @param destinationFold the packet's destination address, folded (dh)
   */
  @Nullable SchedDest pick(int clientFold, int clientPort, int destinationFold);

  /**
   * The kernel's address fold of {@code a}: IPv4 as a number, IPv6 as the XOR of its four 32-bit
   * words.
   */
  static int fold(java.net.InetAddress a) {
    // Inet4Address.hashCode() is the address itself: no copy of the bytes on the hot path.
    return a instanceof java.net.Inet4Address ? a.hashCode() : AddressFold.fold(a);
  }
}
