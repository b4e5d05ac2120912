package io.fairway.vrrp.packet;

import io.fairway.vrrp.packet.MalformedAdvertException.Kind;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Encodes and decodes the VRRP message (the IP payload).
 *
 * <pre>
 *  0               1               2               3
 *  |ver|type=1| VRID          | priority      | count IPvX addrs |
 *  v2: | auth type     | adver int (s) | checksum                     |
 *  v3: |rsvd| max adver int (cs, 12 bits) | checksum                  |
 *  addresses (4 or 16 bytes each) ... [v2: 8 bytes of authentication data]
 * </pre>
 *
 * <p>The v2 checksum covers the VRRP message; the v3 one also covers the IPv4 or IPv6 pseudo-header
 * (source, destination, protocol 112, length), as RFC 5798 section 5.2.8 and keepalived do.
 */
public final class AdvertCodec {
  /** IP protocol number of VRRP. */
  public static final int PROTOCOL = 112;

  private static final int HEADER = 8;
  private static final int AUTH_DATA = 8;

  private AdvertCodec() {}

  /**
   * The message for {@code a}, sent from {@code source} to {@code destination} (used by the v3
   * checksum only).
   */
  public static byte[] encode(Advert a, InetAddress source, InetAddress destination) {
    boolean v4 =
        a.addresses().isEmpty()
            ? source instanceof Inet4Address
            : a.addresses().get(0) instanceof Inet4Address;
    int alen = v4 ? 4 : 16;
    int len = HEADER + a.addresses().size() * alen + (a.version() == 2 ? AUTH_DATA : 0);
    byte[] b = new byte[len];
    b[0] = (byte) ((a.version() << 4) | 1);
    b[1] = (byte) a.vrid();
    b[2] = (byte) a.priority();
    b[3] = (byte) a.addresses().size();
    if (a.version() == 2) {
      b[4] = (byte) (a.authPass().isPresent() ? 1 : 0);
      b[5] = (byte) (a.intervalCentis() / 100);
    } else {
      b[4] = (byte) ((a.intervalCentis() >> 8) & 0x0f);
      b[5] = (byte) a.intervalCentis();
    }
    int off = HEADER;
    for (InetAddress x : a.addresses()) {
      System.arraycopy(x.getAddress(), 0, b, off, alen);
      off += alen;
    }
    if (a.version() == 2) {
      a.authPass()
          .ifPresent(
              p -> {
                byte[] pb = p.getBytes(StandardCharsets.ISO_8859_1);
                System.arraycopy(pb, 0, b, len - AUTH_DATA, pb.length);
              });
    }
    int sum = checksum(a.version(), b, 0, len, source, destination);
    b[6] = (byte) (sum >> 8);
    b[7] = (byte) sum;
    return b;
  }

  /**
   * Decodes the message in {@code buf[off, off+len)} received from {@code source} for {@code
   * destination}, of the family of {@code source}.
   *
   * @throws MalformedAdvertException for anything that is not a well-formed, correctly checksummed
   *     advertisement; never another exception for any bytes
   */
  public static Advert decode(
      byte[] buf, int off, int len, InetAddress source, InetAddress destination)
      throws MalformedAdvertException {
    if (off < 0 || len < 0 || off > buf.length - len) {
      throw new MalformedAdvertException(Kind.TRUNCATED, "buffer bounds");
    }
    if (len < HEADER) {
      throw new MalformedAdvertException(Kind.TRUNCATED, len + " bytes, a VRRP header is 8");
    }
    int version = (buf[off] & 0xff) >> 4;
    int type = buf[off] & 0x0f;
    if (version != 2 && version != 3) {
      throw new MalformedAdvertException(Kind.VERSION, "version " + version);
    }
    if (type != 1) {
      throw new MalformedAdvertException(Kind.TYPE, "type " + type + " is not ADVERTISEMENT");
    }
    boolean v4 = source instanceof Inet4Address;
    if (version == 2 && !v4) {
      throw new MalformedAdvertException(Kind.FAMILY, "VRRPv2 over IPv6");
    }
    int vrid = buf[off + 1] & 0xff;
    int priority = buf[off + 2] & 0xff;
    int count = buf[off + 3] & 0xff;
    int alen = v4 ? 4 : 16;
    int expected = HEADER + count * alen + (version == 2 ? AUTH_DATA : 0);
    if (len != expected) {
      throw new MalformedAdvertException(
          Kind.LENGTH, len + " bytes for " + count + " addresses, expected " + expected);
    }
    if (vrid == 0) {
      throw new MalformedAdvertException(Kind.LENGTH, "virtual router id 0");
    }
    int sum = checksum(version, buf, off, len, source, destination);
    if (sum != 0) {
      throw new MalformedAdvertException(Kind.CHECKSUM, "bad checksum");
    }
    int interval;
    Optional<String> auth = Optional.empty();
    if (version == 2) {
      int authType = buf[off + 4] & 0xff;
      interval = (buf[off + 5] & 0xff) * 100;
      if (interval == 0) {
        throw new MalformedAdvertException(Kind.INTERVAL, "advertisement interval 0");
      }
      if (authType == 1) {
        int p = off + len - AUTH_DATA;
        int n = 0;
        while (n < AUTH_DATA && buf[p + n] != 0) {
          n++;
        }
        auth = Optional.of(new String(buf, p, n, StandardCharsets.ISO_8859_1));
      } else if (authType != 0) {
        throw new MalformedAdvertException(
            Kind.AUTH_TYPE,
            "authentication type "
                + authType
                + (authType == 2 ? " (IPsec AH) is not supported" : " is unknown"));
      }
    } else {
      interval = ((buf[off + 4] & 0x0f) << 8) | (buf[off + 5] & 0xff);
      if (interval == 0) {
        throw new MalformedAdvertException(Kind.INTERVAL, "advertisement interval 0");
      }
    }
    List<InetAddress> addresses = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      byte[] a = new byte[alen];
      System.arraycopy(buf, off + HEADER + i * alen, a, 0, alen);
      addresses.add(address(a));
    }
    return new Advert(version, vrid, priority, interval, addresses, auth);
  }

  private static InetAddress address(byte[] a) {
    try {
      // getByAddress would turn an IPv4-mapped IPv6 address into an Inet4Address.
      return a.length == 4 ? InetAddress.getByAddress(a) : Inet6Address.getByAddress(null, a, -1);
    } catch (UnknownHostException e) {
      throw new AssertionError("4 or 16 bytes", e);
    }
  }

  /** The checksum over the message (and, for v3, the pseudo-header); 0 when a message checks. */
  private static int checksum(
      int version, byte[] b, int off, int len, InetAddress source, InetAddress destination) {
    long sum = 0;
    if (version == 3) {
      byte[] s = source.getAddress();
      byte[] d = destination.getAddress();
      sum = Checksum.add(sum, s, 0, s.length);
      sum = Checksum.add(sum, d, 0, d.length);
      // IPv4: zero, protocol, 16-bit length; IPv6: 32-bit length, 3 zeros, next header.
      sum += PROTOCOL + len;
    }
    // Skip the checksum field itself when encoding (it is zero then) but include it when
    // checking: summing a correct message with its checksum gives 0 after the complement.
    sum = Checksum.add(sum, b, off, len);
    return Checksum.fold(sum);
  }
}
