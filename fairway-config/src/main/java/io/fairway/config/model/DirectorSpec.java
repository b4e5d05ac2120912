package io.fairway.config.model;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

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
   * {@code shard { replicas by healthy warmup rampup alt associate }}, Varnish's names and
   * defaults. The pick arguments ({@code by}, {@code healthy}, {@code warmup}, {@code alt} and
   * whether rampup applies) are the effective ones, with Varnish's precedence already applied: what
   * the block sets (a VCL's {@code .backend(...)} arguments) over the associated {@code
   * shard_param} over Varnish's defaults. Per-request arguments ({@code alt_header}, a retry) come
   * on top in the data plane.
   *
   * @param replicas ring points per backend (at weight 1), at least 1 (default 67)
   * @param by the key source (default HASH for lb_kind HTTP, CLIENT_IP for PROXY)
   * @param healthy CHOSEN, IGNORE or ALL (default CHOSEN)
   * @param warmup probability 0..1 of using the next backend for a warming one (default 0)
   * @param rampup how long a recovered backend takes to get its full share (default 0)
   * @param alt which alternative on the ring a request gets by default (default 0)
   * @param rampupOn whether rampup applies to picks (shard_param {@code rampup}, default on)
   * @param associate the {@code shard_param} the block associates, if any
   */
  record Shard(
      int replicas,
      KeySource by,
      Healthy healthy,
      double warmup,
      Duration rampup,
      int alt,
      boolean rampupOn,
      Optional<String> associate)
      implements DirectorSpec {
    public static final int DEFAULT_REPLICAS = 67;

    public Shard {
      Objects.requireNonNull(associate, "associate");
    }

    /** Without alt, with rampup on and no associated shard_param. */
    public Shard(int replicas, KeySource by, Healthy healthy, double warmup, Duration rampup) {
      this(replicas, by, healthy, warmup, rampup, 0, true, Optional.empty());
    }
  }

  /** Varnish shard's {@code healthy=} argument. */
  enum Healthy {
    CHOSEN,
    IGNORE,
    ALL
  }
}
