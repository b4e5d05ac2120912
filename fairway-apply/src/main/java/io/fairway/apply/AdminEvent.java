package io.fairway.apply;

import org.jspecify.annotations.Nullable;

/**
 * A change the admin layer made or caused: an operator's action, or the quorum and sorry server
 * changes that follow from the resulting table.
 *
 * @param kind what changed
 * @param virtualServer the virtual server
 * @param realServer the real server, or null for a virtual-server change
 * @param reason why, for the log and the event stream
 */
public record AdminEvent(
    Kind kind, String virtualServer, @Nullable String realServer, String reason) {
  /** What changed. */
  public enum Kind {
    ADMIN,
    QUORUM_UP,
    QUORUM_DOWN,
    SORRY_IN,
    SORRY_OUT
  }
}
