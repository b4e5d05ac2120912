package io.fairway.director;

import java.util.concurrent.ThreadLocalRandom;

/**
 * Where the random director and shard rampup/warmup get their dice. Injectable so that tests are
 * deterministic; the varnish package's {@code Vrnd} reproduces varnishd's sequence for a given
 * {@code debug.srandom} seed (named, not linked: this package stays below the directors built on
 * it).
 */
@FunctionalInterface
public interface RandomSource {

  /** A uniformly distributed value in {@code [0, 2^31)}, like {@code random(3)}. */
  int next31();

  /**
   * A double in {@code [0, 1)} made of two draws, {@code a*2^-31 + b*2^-62}, exactly as Varnish's
   * {@code VRND_RandomTestableDouble} (first draw is the high part).
   */
  default double nextDouble() {
    double a = next31();
    double b = next31();
    return a * 0x1p-31 + b * 0x1p-62;
  }

  /** Production default: lock-free, per-thread, not reproducible. */
  static RandomSource threadLocal() {
    return () -> ThreadLocalRandom.current().nextInt() >>> 1;
  }
}
