package io.fairway.apply;

import org.jspecify.annotations.Nullable;

/**
 * An operator's setting on one real server.
 *
 * @param virtualServer the virtual server's name
 * @param realServer the real server's name
 * @param state drain, maint or none
 * @param weight the effective weight set with {@code weight N}, or null for the checkers' weight
 */
public record ServerAdmin(
    String virtualServer, String realServer, AdminState state, @Nullable Integer weight) {
  public ServerAdmin {
    if (weight != null && weight < 0) {
      throw new IllegalArgumentException("weight must be >= 0: " + weight);
    }
  }

  /** Whether it overrides anything at all. */
  public boolean isSet() {
    return state != AdminState.NONE || weight != null;
  }
}
