package io.fairway.table;

/**
 * A forwarder whose connection-state timeouts can be read and set ({@code ipvsadm --set}): the
 * kernel's IPVS, and {@link MemoryTable}, which imitates it. keepalived's {@code lvs_timeouts}
 * needs it. The userspace proxy has no such global state (its idle timeout is an option chosen at
 * start), so it does not implement this.
 */
public interface TimeoutControl {

  /** The timeouts in force ({@code IPVS_CMD_GET_CONFIG}). */
  Timeouts timeouts() throws TableException;

  /**
   * Sets the non-zero fields of {@code timeouts}; a zero field is left as it is ({@code
   * IPVS_CMD_SET_CONFIG} with only the attributes given).
   */
  void setTimeouts(Timeouts timeouts) throws TableException;
}
