package io.fairway.apply;

import io.fairway.table.Dest;
import java.util.Objects;

/**
 * Binds a framework real server to its IPVS destination.
 *
 * @param name the name the health-check framework reports verdicts under
 * @param dest the destination as configured; its weight is ignored in favour of {@code weight}
 * @param inhibit drain (weight 0) instead of removing on failure; see the package comment
 * @param weight the configured weight, restored when the server comes back
 */
public record RealServer(String name, Dest dest, boolean inhibit, int weight) {
  public RealServer {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(dest, "dest");
    if (weight < 0) {
      throw new IllegalArgumentException("weight must be >= 0: " + weight);
    }
  }
}
