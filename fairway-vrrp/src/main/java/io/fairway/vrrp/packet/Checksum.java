package io.fairway.vrrp.packet;

/** The Internet checksum (RFC 1071): the ones' complement of the ones' complement sum. */
final class Checksum {
  private Checksum() {}

  /** Adds {@code len} bytes at {@code off} to a running 32-bit sum (odd lengths padded). */
  static long add(long sum, byte[] b, int off, int len) {
    int i = 0;
    for (; i + 1 < len; i += 2) {
      sum += ((b[off + i] & 0xff) << 8) | (b[off + i + 1] & 0xff);
    }
    if (i < len) {
      sum += (b[off + i] & 0xff) << 8;
    }
    return sum;
  }

  /** Folds a running sum into the 16-bit checksum value. */
  static int fold(long sum) {
    while ((sum >>> 16) != 0) {
      sum = (sum & 0xffff) + (sum >>> 16);
    }
    return (int) (~sum & 0xffff);
  }
}
