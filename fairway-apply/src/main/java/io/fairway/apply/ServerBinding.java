package io.fairway.apply;

import io.fairway.table.Dest;
import java.time.Duration;
import java.util.Objects;

/**
 * Binds a framework real server to its IPVS destination.
 *
 * @param name the name the health-check framework reports verdicts under
 * @param dest the destination as configured; its weight is ignored in favour of {@code weight}
 * @param inhibit drain (weight 0) instead of removing on failure; see the package comment
 * @param weight the configured weight, restored when the server comes back
 * @param slowStart {@code slow_start}: when the server comes up after start its weight is stepped
 *     up to the target over this time ({@link SlowStartSteps}); zero = off
 * @param tier its backup tier ({@link Tiers}): 0 serves whenever it is up; a higher tier is a
 *     backup, kept out of the table while any server of a lower tier is up (an SRV answer's higher
 *     priorities)
 */
public record ServerBinding(
    String name, Dest dest, boolean inhibit, int weight, Duration slowStart, int tier) {
  public ServerBinding {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(dest, "dest");
    if (weight < 0) {
      throw new IllegalArgumentException("weight must be >= 0: " + weight);
    }
    slowStart = slowStart == null ? Duration.ZERO : slowStart;
    if (slowStart.isNegative()) {
      throw new IllegalArgumentException("slow start must be >= 0: " + slowStart);
    }
    if (tier < 0) {
      throw new IllegalArgumentException("tier must be >= 0: " + tier);
    }
  }

  /** In tier 0: never a backup. */
  public ServerBinding(String name, Dest dest, boolean inhibit, int weight, Duration slowStart) {
    this(name, dest, inhibit, weight, slowStart, 0);
  }

  /** Without slow start. */
  public ServerBinding(String name, Dest dest, boolean inhibit, int weight) {
    this(name, dest, inhibit, weight, Duration.ZERO);
  }
}
