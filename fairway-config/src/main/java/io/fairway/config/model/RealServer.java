package io.fairway.config.model;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * A {@code real_server} block with its inherited defaults applied.
 *
 * @param id address and port (the identity used across reloads)
 * @param name {@code name}, default {@code IP:PORT}
 * @param ident the shard director's ident ({@code ident}), default = name
 * @param weight the configured weight; an integer 0..2^31-1 for kernel schedulers, a non-negative
 *     decimal for Varnish directors (default: the virtual server's {@code weight}, 1)
 * @param forwarding {@code lvs_method}, default the virtual server's
 * @param upperThreshold {@code uthreshold}, 0 for none
 * @param lowerThreshold {@code lthreshold}, 0 for none; never above upperThreshold
 * @param inhibitOnFailure set weight 0 instead of removing a failed server
 * @param notifyUp script run when the server comes up
 * @param notifyDown script run when it goes down
 * @param checkers its health checkers; empty means "always up"
 * @param slowStart {@code slow_start} (a Fairway extension), its own or inherited from the
 *     virtual server: a server that comes up after start takes its share progressively over this
 *     time; {@link Duration#ZERO} = off
 */
public record RealServer(
    Location location,
    RealServerId id,
    String name,
    String ident,
    double weight,
    Forwarding forwarding,
    long upperThreshold,
    long lowerThreshold,
    boolean inhibitOnFailure,
    Optional<Script> notifyUp,
    Optional<Script> notifyDown,
    List<Checker> checkers,
    Duration slowStart) {
  public RealServer {
    checkers = List.copyOf(checkers);
    slowStart = slowStart == null ? Duration.ZERO : slowStart;
  }

  /** The weight as the kernel takes it (truncated; only meaningful for kernel schedulers). */
  public int intWeight() {
    return (int) Math.min(Integer.MAX_VALUE, Math.max(0, (long) weight));
  }
}
