package io.fairway.table;

import java.net.Inet6Address;
import java.net.InetAddress;

/** Formatting of address:port pairs the way ipvsadm and keepalived print them. */
public final class Endpoints {
  private Endpoints() {}

  /** {@code 10.0.0.1:80} or {@code [2001:db8::1]:80}. */
  public static String format(InetAddress address, int port) {
    if (address instanceof Inet6Address) {
      return "[" + formatAddress(address) + "]:" + port;
    }
    return address.getHostAddress() + ":" + port;
  }

  /**
   * An address as {@code inet_ntop} prints it, which is what ipvsadm and keepalived show: IPv6 in
   * its shortest form ({@code 2001:db8::1}, the longest run of zero groups as {@code ::}), where
   * Java's own {@code getHostAddress} would print {@code 2001:db8:0:0:0:0:0:1}.
   */
  public static String formatAddress(InetAddress address) {
    if (!(address instanceof Inet6Address)) {
      return address.getHostAddress();
    }
    byte[] b = address.getAddress();
    int[] w = new int[8];
    for (int i = 0; i < 8; i++) {
      w[i] = ((b[2 * i] & 0xff) << 8) | (b[2 * i + 1] & 0xff);
    }
    boolean mapped =
        w[0] == 0 && w[1] == 0 && w[2] == 0 && w[3] == 0 && w[4] == 0 && w[5] == 0xffff;
    int groups = mapped ? 6 : 8;
    int bestStart = -1;
    int bestLen = 0;
    for (int i = 0; i < groups; ) {
      if (w[i] != 0) {
        i++;
        continue;
      }
      int j = i;
      while (j < groups && w[j] == 0) {
        j++;
      }
      if (j - i > bestLen) {
        bestStart = i;
        bestLen = j - i;
      }
      i = j;
    }
    if (bestLen < 2) {
      bestStart = -1;
    }
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < groups; i++) {
      if (i == bestStart) {
        sb.append("::");
        i += bestLen - 1;
        continue;
      }
      if (sb.length() > 0 && sb.charAt(sb.length() - 1) != ':') {
        sb.append(':');
      }
      sb.append(Integer.toHexString(w[i]));
    }
    if (mapped) {
      if (sb.charAt(sb.length() - 1) != ':') {
        sb.append(':');
      }
      sb.append(b[12] & 0xff)
          .append('.')
          .append(b[13] & 0xff)
          .append('.')
          .append(b[14] & 0xff)
          .append('.')
          .append(b[15] & 0xff);
    }
    return sb.toString();
  }
}
