package io.fairway.config.model;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * A virtual server's persistence: {@code persistence_timeout}, {@code persistence_granularity} and
 * {@code persistence_engine}. {@link #NONE} when none is written (and the port is not 0, for which
 * keepalived forces persistence on).
 *
 * @param timeout {@code persistence_timeout}; zero when not persistent
 * @param granularity netmask prefix length of {@code persistence_granularity}, if set
 * @param engine {@code persistence_engine}, if set
 */
public record PersistenceSettings(
    Duration timeout, Optional<Integer> granularity, Optional<String> engine) {
  /** Not persistent. */
  public static final PersistenceSettings NONE =
      new PersistenceSettings(Duration.ZERO, Optional.empty(), Optional.empty());

  public PersistenceSettings {
    Objects.requireNonNull(timeout, "timeout");
    Objects.requireNonNull(granularity, "granularity");
    Objects.requireNonNull(engine, "engine");
  }

  /** True if persistence is on. */
  public boolean on() {
    return !timeout.isZero();
  }
}
