package io.fairway.director.sched;

import java.util.List;

/**
 * One IPVS scheduling algorithm: picks the real server for a <em>new</em> connection, or none.
 *
 * <p>Every implementation follows the kernel's rules: a weight-0 (quiesced) or OVERLOADed server gets no new
 * connection; servers are visited in the kernel's list order, which is the reverse of the order they were added
 * (the kernel inserts at the head), because ties and hash tables depend on that order.
 */
public interface KernelScheduler {

    /** The {@code lb_algo} name. */
    String name();

    /**
     * Called on every membership, weight or threshold change, like the kernel's add_dest/del_dest/upd_dest hooks.
     *
     * @param kernelOrder the servers in the kernel's list order (most recently added first)
     */
    void update(List<Dest> kernelOrder);

    /** The server for a new connection, or {@code null} when the kernel would answer "no destination available". */
    Dest schedule(Flow flow);
}
