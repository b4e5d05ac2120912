package io.fairway.table;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The forwarding table: what {@code ipvsadm} edits, as an interface.
 *
 * <p>The apply layer is its only writer in the daemon. Implementations: the kernel's IPVS over
 * generic netlink, and the userspace proxy. Semantics follow the kernel:
 *
 * <ul>
 *   <li>{@code add*} on an existing entry fails with {@link TableException.Reason#EXISTS}; {@code
 *       set*}/{@code del*} on a missing destination with {@code NOT_FOUND}, on a missing service
 *       with {@code NO_SERVICE}.
 *   <li>Weight 0 quiesces a destination: no new connections, established ones continue. Deleting it
 *       is what ends them (subject to the forwarder's expire-nodest setting).
 *   <li>Deleting a service deletes its destinations.
 * </ul>
 *
 * <p>Implementations are safe to call from one thread at a time; the apply layer serialises.
 */
public interface Table extends AutoCloseable {

  void addService(Service service) throws TableException;

  /** Replaces scheduler, flags, timeout, netmask and persistence engine of an existing service. */
  void setService(Service service) throws TableException;

  void delService(ServiceKey key) throws TableException;

  void addDest(ServiceKey service, Dest dest) throws TableException;

  /** Replaces forwarding, weight, thresholds and tunnel of an existing destination. */
  void setDest(ServiceKey service, Dest dest) throws TableException;

  void delDest(ServiceKey service, DestKey dest) throws TableException;

  /** Every service with its destinations and counters, in no particular order. */
  List<ServiceEntry> list() throws TableException;

  /** Deletes every service. */
  void flush() throws TableException;

  /**
   * Applies many operations at once. The kernel implementation sends them in as few round trips as
   * it can; the default runs them one by one. Every operation is attempted; the result holds one
   * entry per operation, {@code null} for success.
   */
  default List<@Nullable TableException> apply(List<TableOp> ops) {
    java.util.ArrayList<@Nullable TableException> results = new java.util.ArrayList<>(ops.size());
    for (TableOp op : ops) {
      try {
        op.applyTo(this);
        results.add(null);
      } catch (TableException e) {
        results.add(e);
      }
    }
    return results;
  }

  /**
   * Starts holding back publication. Until {@link #release}, operations still run one by one, each
   * with its own result, so a refusal is known when it happens; but a table that publishes its
   * destinations to readers elsewhere (the userspace proxy's event loops) may publish each service
   * it touched once, at the release, instead of after every operation. A batch ({@link #apply})
   * made while a hold is on joins it. The apply layer holds across verdicts that arrive together.
   *
   * @return whether this table holds anything back; the kernel's makes each change live as it is
   *     made, so there is nothing to hold (the default)
   */
  default boolean hold() {
    return false;
  }

  /** Publishes what a {@link #hold} held back, and ends it; nothing without one. */
  default void release() {}

  @Override
  default void close() throws TableException {}
}
