package io.fairway.director.varnish;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import org.jspecify.annotations.Nullable;

/**
 * Varnish's key hashing, bit for bit: the one place a Java port most easily goes wrong (which bytes
 * of the digest, which byte order, signed or unsigned).
 *
 * <p>Strings are hashed as UTF-8, which is what varnishd sees on the wire for a URL or header.
 */
public final class VarnishHash {

  private static final ThreadLocal<MessageDigest> SHA256 =
      ThreadLocal.withInitial(VarnishHash::newSha256);

  /** Per-thread buffers so hashing an ASCII key allocates nothing. */
  private static final class Scratch {
    final MessageDigest md = newSha256();
    byte[] in = new byte[256];
    final byte[] out = new byte[32];
  }

  private static final ThreadLocal<Scratch> SCRATCH = ThreadLocal.withInitial(Scratch::new);

  private VarnishHash() {}

  private static MessageDigest newSha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JDK must provide SHA-256", e);
    }
  }

  /**
   * {@code VRT_HashStrands32}: SHA-256 over the concatenated parts (null and empty parts add
   * nothing, no separator), then the <em>last</em> 4 digest bytes read little-endian, as an
   * unsigned value in {@code 0 .. 2^32-1}. Used for shard ring points, {@code shard.key()}, shard
   * {@code by=URL} and the hash director.
   */
  public static long hashStrands32(String... parts) {
    MessageDigest md = SHA256.get();
    md.reset();
    for (String p : parts) {
      if (p != null && !p.isEmpty()) {
        md.update(p.getBytes(StandardCharsets.UTF_8));
      }
    }
    return lastFourLittleEndian(md.digest());
  }

  /** {@link #hashStrands32(String...)} of a single string. */
  public static long hash32(@Nullable String s) {
    Scratch sc = SCRATCH.get();
    MessageDigest md = sc.md;
    md.reset();
    if (s != null && !s.isEmpty()) {
      int n = s.length();
      if (sc.in.length < n) {
        sc.in = new byte[Math.max(n, sc.in.length * 2)];
      }
      byte[] in = sc.in;
      boolean ascii = true;
      for (int i = 0; i < n; i++) {
        char c = s.charAt(i);
        if (c >= 0x80) {
          ascii = false;
          break;
        }
        in[i] = (byte) c;
      }
      if (ascii) {
        md.update(in, 0, n);
      } else {
        md.update(s.getBytes(StandardCharsets.UTF_8));
      }
    }
    try {
      md.digest(sc.out, 0, 32);
    } catch (java.security.DigestException e) {
      throw new IllegalStateException("SHA-256 digest into a 32-byte buffer failed", e);
    }
    return lastFourLittleEndian(sc.out);
  }

  /** {@link #hashStrands32} of raw bytes (for callers that already hold the request bytes). */
  public static long hash32(byte[] bytes, int offset, int length) {
    MessageDigest md = SHA256.get();
    md.reset();
    md.update(bytes, offset, length);
    return lastFourLittleEndian(md.digest());
  }

  /** A shard ring point: {@code HashStrands32(ident, "%d" of replica)}. */
  static long ringPoint(String ident, int replica) {
    return hash32(ident + replica);
  }

  /**
   * Ring points {@code 0 .. count-1} of one ident, as {@link #ringPoint} gives them, hashing the
   * ident's bytes followed by the replica's decimal digits without building strings.
   */
  static int[] ringPoints(String ident, int count) {
    Scratch sc = SCRATCH.get();
    MessageDigest md = sc.md;
    byte[] id = ident.getBytes(StandardCharsets.UTF_8);
    byte[] digits = new byte[11];
    int[] out = new int[count];
    try {
      for (int j = 0; j < count; j++) {
        md.reset();
        md.update(id, 0, id.length);
        int p = digits.length;
        int v = j;
        do {
          digits[--p] = (byte) ('0' + v % 10);
          v /= 10;
        } while (v != 0);
        md.update(digits, p, digits.length - p);
        md.digest(sc.out, 0, 32);
        out[j] = (int) lastFourLittleEndian(sc.out);
      }
    } catch (java.security.DigestException e) {
      throw new IllegalStateException("SHA-256 digest into a 32-byte buffer failed", e);
    }
    return out;
  }

  /**
   * Shard {@code by=HASH} in backend context: the first 4 bytes, big-endian, of the request digest
   * the builtin {@code vcl_hash} makes, {@code SHA256(url "\0" host "\0")}.
   */
  public static long digestKey(String url, String host) {
    MessageDigest md = SHA256.get();
    md.reset();
    md.update(url.getBytes(StandardCharsets.UTF_8));
    md.update((byte) 0);
    md.update(host.getBytes(StandardCharsets.UTF_8));
    md.update((byte) 0);
    byte[] d = md.digest();
    return ((d[0] & 0xFFL) << 24) | ((d[1] & 0xFFL) << 16) | ((d[2] & 0xFFL) << 8) | (d[3] & 0xFFL);
  }

  /**
   * Shard {@code by=BLOB}: the first 4 bytes big-endian; a shorter blob is right-aligned with
   * leading zeros; null or empty gives 0.
   */
  public static long blobKey(byte @Nullable [] blob) {
    if (blob == null) {
      return 0;
    }
    long k = 0;
    int n = Math.min(4, blob.length);
    for (int i = 0; i < n; i++) {
      k = (k << 8) | (blob[i] & 0xFF);
    }
    return k;
  }

  private static long lastFourLittleEndian(byte[] d) {
    return (d[28] & 0xFFL)
        | ((d[29] & 0xFFL) << 8)
        | ((d[30] & 0xFFL) << 16)
        | ((d[31] & 0xFFL) << 24);
  }
}
