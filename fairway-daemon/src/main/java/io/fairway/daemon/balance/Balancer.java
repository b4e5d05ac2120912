package io.fairway.daemon.balance;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One virtual server's selection: which real server a key goes to, with real servers marked up or
 * down. Implemented over a Varnish director ({@link DirectorBalancer}) or a kernel scheduler
 * ({@link SchedulerBalancer}).
 */
public interface Balancer {

  /** The virtual server's name. */
  String name();

  /** The {@code lb_algo} keyword. */
  String algorithm();

  /** The real servers' names, in configuration order. */
  List<String> servers();

  /** Marks a real server up or down; returns whether it exists. */
  boolean setUp(String server, boolean up);

  /**
   * The name of the real server chosen for one key, or {@code null} when none is. What a key is
   * depends on the algorithm: for shard the string hashed as {@code shard.key(string)}; for hash
   * the string hashed as {@code hash.backend(string)}; for sh/dh/mh a client address {@code IP} or
   * {@code IP:PORT}; round_robin, fallback, random and the other kernel schedulers ignore it (each
   * key is one more connection).
   */
  @Nullable String pick(String key);

  /**
   * What-if slow start: the real server is {@code elapsed} into its ramp ({@code slow_start}; for
   * shard its {@code rampup}), and stays there for the picks that follow (the balancer's clock does
   * not move).
   *
   * @throws BalanceException when the server is unknown, has no ramp configured, or the algorithm
   *     does not ramp (sh, dh, mh, hash: a ramp could only move keys)
   */
  RampView ramp(String server, java.time.Duration elapsed);

  /**
   * What {@code fairway pick} prints for one key: the server's name, or for layered directors the
   * directors the key passes through and the server, {@code primary/b3}; {@code null} when none is
   * chosen.
   */
  default @Nullable String route(String key) {
    return pick(key);
  }
}
