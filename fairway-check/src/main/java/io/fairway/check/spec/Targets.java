package io.fairway.check.spec;

import java.net.Inet6Address;
import java.net.InetSocketAddress;

/** Formats targets the way operators write them: {@code 10.0.0.1:80}, {@code [::1]:80}. */
final class Targets {
  private Targets() {}

  static String format(InetSocketAddress a) {
    if (a.isUnresolved()) {
      return a.getHostString() + ":" + a.getPort();
    }
    return a.getAddress() instanceof Inet6Address v6
        ? "[" + compact(v6) + "]:" + a.getPort()
        : a.getAddress().getHostAddress() + ":" + a.getPort();
  }

  /** RFC 5952 text: {@code ::1}, not the JDK's {@code 0:0:0:0:0:0:0:1}. */
  static String compact(Inet6Address a) {
    byte[] b = a.getAddress();
    int[] g = new int[8];
    for (int i = 0; i < 8; i++) {
      g[i] = ((b[2 * i] & 0xff) << 8) | (b[2 * i + 1] & 0xff);
    }
    int bestStart = -1;
    int bestLen = 1;
    for (int i = 0; i < 8; ) {
      int j = i;
      while (j < 8 && g[j] == 0) {
        j++;
      }
      if (j - i > bestLen) {
        bestStart = i;
        bestLen = j - i;
      }
      i = j == i ? i + 1 : j;
    }
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < 8; i++) {
      if (i == bestStart) {
        sb.append("::");
        i += bestLen - 1;
        continue;
      }
      if (sb.length() > 0 && sb.charAt(sb.length() - 1) != ':') {
        sb.append(':');
      }
      sb.append(Integer.toHexString(g[i]));
    }
    return sb.toString();
  }
}
