package io.fairway.config.model;

import io.fairway.config.model.base.Location;
import java.util.Objects;
import java.util.Optional;

/**
 * A top-level {@code shard_param NAME { }} block (a Fairway extension): Varnish's {@code
 * directors.shard_param()} object, a named set of shard pick arguments that several shard directors
 * {@code associate}. Only what the block sets is present; what it leaves out falls through to
 * Varnish's defaults. A shard that associates it may still set any of them itself (as {@code
 * .backend(...)} arguments in a VCL override the associated set).
 *
 * @param location where the block is
 * @param name its name, unique among shard_param blocks
 * @param by the key source ({@code by=})
 * @param healthy {@code healthy=}
 * @param warmup {@code warmup=}, a probability 0..1
 * @param rampup {@code rampup=}: whether a recovering member's rampup applies
 * @param alt {@code alt=}: which alternative on the ring (0 = the first choice)
 */
public record ShardParam(
    Location location,
    String name,
    Optional<KeySource> by,
    Optional<DirectorSpec.Healthy> healthy,
    Optional<Double> warmup,
    Optional<Boolean> rampup,
    Optional<Integer> alt) {
  public ShardParam {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(by, "by");
    Objects.requireNonNull(healthy, "healthy");
    Objects.requireNonNull(warmup, "warmup");
    Objects.requireNonNull(rampup, "rampup");
    Objects.requireNonNull(alt, "alt");
  }
}
