package io.fairway.director.sched;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;

/** Literal IP parsing (never DNS) and the kernel's address fold used by sh, dh and mh. */
final class AddressFold {
  private AddressFold() {}

  /** Parses an IPv4 or IPv6 literal, without any name lookup. */
  static InetAddress parse(String ip) {
    String s = ip.strip();
    if (s.startsWith("[") && s.endsWith("]")) s = s.substring(1, s.length() - 1);
    boolean v4 = s.matches("\\d{1,3}(\\.\\d{1,3}){3}");
    boolean v6 = s.indexOf(':') >= 0 && s.matches("[0-9A-Fa-f:.]+");
    if (!v4 && !v6) throw new IllegalArgumentException("'" + ip + "' is not an IP address");
    if (v4) {
      for (String part : s.split("\\.")) {
        if (Integer.parseInt(part) > 255)
          throw new IllegalArgumentException("'" + ip + "' is not an IP address");
      }
    }
    try {
      return InetAddress.getByName(s);
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException("'" + ip + "' is not an IP address");
    }
  }

  /**
   * The kernel's {@code addr_fold}: the IPv4 address, or the XOR of the four 32-bit words of an
   * IPv6 address, in host order ({@code ntohl}).
   */
  static int fold(InetAddress a) {
    byte[] b = a.getAddress();
    if (a instanceof Inet4Address) return word(b, 0);
    if (a instanceof Inet6Address) return word(b, 0) ^ word(b, 4) ^ word(b, 8) ^ word(b, 12);
    throw new IllegalArgumentException("unsupported address " + a);
  }

  private static int word(byte[] b, int o) {
    return (b[o] & 0xff) << 24
        | (b[o + 1] & 0xff) << 16
        | (b[o + 2] & 0xff) << 8
        | (b[o + 3] & 0xff);
  }
}
