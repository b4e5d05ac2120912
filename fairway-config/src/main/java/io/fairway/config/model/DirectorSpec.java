package io.fairway.config.model;

import java.time.Duration;

/**
 * The parameters of a Varnish director chosen with {@code lb_algo}. Kernel schedulers and the
 * directors without parameters ({@code round_robin}, {@code random}) use {@link None}.
 */
public sealed interface DirectorSpec {

  /** No parameters. */
  record None() implements DirectorSpec {}

  /**
   * {@code fallback { sticky }}: keep using the backend in use while it is healthy, even if an
   * earlier one recovers.
   */
  record Fallback(boolean sticky) implements DirectorSpec {}

  /** {@code hash { by URL|HEADER name|COOKIE name|CLIENT_IP }}. */
  record Hash(KeySource by) implements DirectorSpec {}

  /**
   * {@code shard { replicas by healthy warmup rampup }}, Varnish's names and defaults.
   *
   * @param replicas ring points per backend (at weight 1), at least 1 (default 67)
   * @param by the key source (default HASH for lb_kind HTTP, CLIENT_IP for PROXY)
   * @param healthy CHOSEN, IGNORE or ALL (default CHOSEN)
   * @param warmup probability 0..1 of using the next backend for a warming one (default 0)
   * @param rampup how long a recovered backend takes to get its full share (default 0)
   */
  record Shard(int replicas, KeySource by, Healthy healthy, double warmup, Duration rampup)
      implements DirectorSpec {
    public static final int DEFAULT_REPLICAS = 67;
  }

  /** Varnish shard's {@code healthy=} argument. */
  enum Healthy {
    CHOSEN,
    IGNORE,
    ALL
  }
}
