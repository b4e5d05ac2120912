package io.fairway.plan;

import io.fairway.table.Dest;
import java.util.Objects;

/**
 * A service's {@code sorry_server}.
 *
 * @param where {@code FILE:LINE}
 * @param dest the destination, weight fixed at 1 as keepalived fixes it
 * @param inhibit {@code sorry_server_inhibit}: kept in the table at weight 0 while not serving
 * @param overflow {@code overflow_to_sorry_server}: it also takes new connections while every real
 *     server is full or quiesced, on both planes (kept in the table at weight 0 otherwise)
 */
public record SorryPlan(String where, Dest dest, boolean inhibit, boolean overflow) {
  public SorryPlan {
    Objects.requireNonNull(dest, "dest");
  }

  /** Without overflow (keepalived's sorry server). */
  public SorryPlan(String where, Dest dest, boolean inhibit) {
    this(where, dest, inhibit, false);
  }
}
