package io.fairway.director.varnish;

import io.fairway.director.Request;

/**
 * A reusable shard parameter set, like Varnish's {@code directors.shard_param()}: the director's
 * defaults, or attached to a {@link Request} to override them for that request.
 *
 * @param by how the key is derived
 * @param healthy how health is treated while walking the ring
 * @param rampup whether rampup applies at all
 * @param warmup probability of sending a request to the next host to warm it, in {@code [0,1]}, or
 *     {@code -1} for the director's default ({@link ShardDirector.Settings#warmup()})
 * @param alt which alternative to return (0 = first choice)
 */
public record ShardParams(ShardBy by, ShardHealthy healthy, boolean rampup, double warmup, int alt)
    implements Request.Params {

  /** Varnish's builtin defaults: by=HASH, healthy=CHOSEN, rampup=true, warmup=-1, alt=0. */
  public static final ShardParams DEFAULTS =
      new ShardParams(ShardBy.HASH, ShardHealthy.CHOSEN, true, -1, 0);

  public ShardParams {
    if (by == null || healthy == null) {
      throw new IllegalArgumentException("by and healthy must be set");
    }
    if (warmup != -1 && !(warmup >= 0 && warmup <= 1)) {
      throw new IllegalArgumentException("invalid warmup argument " + warmup);
    }
    if (alt < 0) {
      throw new IllegalArgumentException("invalid alt argument " + alt);
    }
  }

  /** These parameters with another key mode. */
  public ShardParams withBy(ShardBy b) {
    return new ShardParams(b, healthy, rampup, warmup, alt);
  }

  /** These parameters with another health mode. */
  public ShardParams withHealthy(ShardHealthy h) {
    return new ShardParams(by, h, rampup, warmup, alt);
  }

  /** These parameters with rampup on or off. */
  public ShardParams withRampup(boolean r) {
    return new ShardParams(by, healthy, r, warmup, alt);
  }

  /** These parameters with another warmup probability ({@code -1} = director default). */
  public ShardParams withWarmup(double w) {
    return new ShardParams(by, healthy, rampup, w, alt);
  }

  /** These parameters with another alt. */
  public ShardParams withAlt(int a) {
    return new ShardParams(by, healthy, rampup, warmup, a);
  }
}
