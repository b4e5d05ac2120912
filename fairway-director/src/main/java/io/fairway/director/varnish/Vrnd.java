package io.fairway.director.varnish;

import io.fairway.director.RandomSource;

/**
 * Varnish's "testable" random generator ({@code lib/libvarnish/vrnd.c}): FreeBSD {@code random(3)}
 * TYPE_3 (x^31 + x^3 + 1, additive feedback over 31 words) with Park–Miller seeding and 310
 * discarded outputs. With the same seed as {@code varnishadm debug.srandom N} it yields the same
 * sequence, so a random director configured like a VCL picks the same backends in the same order
 * (upstream test c00000).
 *
 * <p>Like Varnish, one instance is meant to be shared and draws are serialised; that makes it slow
 * under contention, which is why production uses {@link RandomSource#threadLocal()}.
 */
public final class Vrnd implements RandomSource {

  private static final int DEG = 31;
  private static final int SEP = 3;

  private final int[] state = new int[DEG];
  private int front;
  private int rear;

  /** A generator seeded like {@code debug.srandom seed}. */
  public Vrnd(long seed) {
    seed(seed);
  }

  /** Reseeds; the default seed of {@code debug.srandom} is 1. */
  public synchronized void seed(long seed) {
    state[0] = (int) seed;
    for (int i = 1; i < DEG; i++) {
      state[i] = goodRand(state[i - 1]);
    }
    front = SEP;
    rear = 0;
    for (int i = 0; i < 10 * DEG; i++) {
      step();
    }
  }

  /** Park–Miller "minimal standard" step, with FreeBSD's mapping into 1..2^31-2 and back. */
  private static int goodRand(int c) {
    long x = (Integer.toUnsignedLong(c) % 0x7ffffffeL) + 1;
    long hi = x / 127773;
    long lo = x % 127773;
    long r = 16807 * lo - 2836 * hi;
    if (r < 0) {
      r += 0x7fffffffL;
    }
    return (int) (r - 1);
  }

  private int step() {
    state[front] += state[rear];
    int out = state[front] >>> 1;
    if (++front >= DEG) {
      front = 0;
      ++rear;
    } else if (++rear >= DEG) {
      rear = 0;
    }
    return out;
  }

  @Override
  public synchronized int next31() {
    return step();
  }

  @Override
  public synchronized double nextDouble() {
    // Two draws under one lock, high part first, as VRND_RandomTestableDouble.
    double a = step();
    double b = step();
    return a * 0x1p-31 + b * 0x1p-62;
  }
}
