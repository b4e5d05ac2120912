package io.fairway.plan;

import io.fairway.table.Dest;
import java.util.Objects;

/**
 * A service's {@code sorry_server}.
 *
 * @param where {@code FILE:LINE}
 * @param dest the destination, weight fixed at 1 as keepalived fixes it
 * @param inhibit {@code sorry_server_inhibit}: kept in the table at weight 0 while not serving
 */
public record SorryPlan(String where, Dest dest, boolean inhibit) {
  public SorryPlan {
    Objects.requireNonNull(dest, "dest");
  }
}
