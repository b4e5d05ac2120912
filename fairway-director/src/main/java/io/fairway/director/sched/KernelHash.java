package io.fairway.director.sched;

/**
 * The two hash functions IPVS schedulers use, bit-exact with the kernel so a userspace node and a
 * kernel node send the same client to the same server.
 */
final class KernelHash {
  private KernelHash() {}

  /** include/linux/hash.h {@code GOLDEN_RATIO_32}. */
  static final int GOLDEN_RATIO_32 = 0x61C88647;

  /** {@code hash_32(val, bits)}: multiplicative hash, top {@code bits} bits. */
  static int hash32(int val, int bits) {
    return (val * GOLDEN_RATIO_32) >>> (32 - bits);
  }

  private static final long C0 = 0x736f6d6570736575L;
  private static final long C1 = 0x646f72616e646f6dL;
  private static final long C2 = 0x6c7967656e657261L;
  private static final long C3 = 0x7465646279746573L;

  /**
   * {@code hsiphash(&v, 4, key)} on a 64-bit kernel, where lib/siphash.c makes "HalfSipHash-1-3"
   * actually SipHash-1-3 over a 128-bit key of two {@code unsigned long}s. The 4-byte message is
   * the host-order (little-endian) {@code u32}, so it lands in the low half of the final block.
   * Returns the u32 result.
   */
  static int hsiphash32(int v, long k0, long k1) {
    long v0 = C0 ^ k0;
    long v1 = C1 ^ k1;
    long v2 = C2 ^ k0;
    long v3 = C3 ^ k1;
    long b = (4L << 56) | (v & 0xffffffffL);
    v3 ^= b;
    // one compression round
    v0 += v1;
    v1 = Long.rotateLeft(v1, 13);
    v1 ^= v0;
    v0 = Long.rotateLeft(v0, 32);
    v2 += v3;
    v3 = Long.rotateLeft(v3, 16);
    v3 ^= v2;
    v0 += v3;
    v3 = Long.rotateLeft(v3, 21);
    v3 ^= v0;
    v2 += v1;
    v1 = Long.rotateLeft(v1, 17);
    v1 ^= v2;
    v2 = Long.rotateLeft(v2, 32);
    v0 ^= b;
    v2 ^= 0xff;
    // three finalization rounds
    for (int r = 0; r < 3; r++) {
      v0 += v1;
      v1 = Long.rotateLeft(v1, 13);
      v1 ^= v0;
      v0 = Long.rotateLeft(v0, 32);
      v2 += v3;
      v3 = Long.rotateLeft(v3, 16);
      v3 ^= v2;
      v0 += v3;
      v3 = Long.rotateLeft(v3, 21);
      v3 ^= v0;
      v2 += v1;
      v1 = Long.rotateLeft(v1, 17);
      v1 ^= v2;
      v2 = Long.rotateLeft(v2, 32);
    }
    return (int) ((v0 ^ v1) ^ (v2 ^ v3));
  }
}
