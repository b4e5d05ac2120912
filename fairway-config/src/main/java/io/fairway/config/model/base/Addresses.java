package io.fairway.config.model.base;

import io.fairway.table.AddressFamily;
import java.net.Inet6Address;
import java.net.InetAddress;

/** Formatting of addresses the way keepalived and operators write them. */
public final class Addresses {
  private Addresses() {}

  /** {@code 10.0.0.1} or {@code 2001:db8::1} (no brackets, shortest form). */
  public static String format(InetAddress address) {
    String s = address.getHostAddress();
    if (address instanceof Inet6Address) {
      int pct = s.indexOf('%');
      if (pct >= 0) {
        s = s.substring(0, pct);
      }
      s = compress(s);
    }
    return s;
  }

  /** {@code inet} or {@code inet6}: keepalived's word for an address family. */
  public static String keyword(AddressFamily family) {
    return family == AddressFamily.INET6 ? "inet6" : "inet";
  }

  /** {@code 10.0.0.1:80} or {@code [2001:db8::1]:80}. */
  public static String formatWithPort(InetAddress address, int port) {
    String a = format(address);
    return (address instanceof Inet6Address ? "[" + a + "]" : a) + ":" + port;
  }

  // Java prints 2001:db8:0:0:0:0:0:1; RFC 5952 shortens the longest run of zero groups.
  private static String compress(String full) {
    String[] g = full.split(":", -1);
    int bestStart = -1;
    int bestLen = 0;
    for (int i = 0; i < g.length; ) {
      if (g[i].equals("0")) {
        int j = i;
        while (j < g.length && g[j].equals("0")) {
          j++;
        }
        if (j - i > bestLen && j - i > 1) {
          bestStart = i;
          bestLen = j - i;
        }
        i = j;
      } else {
        i++;
      }
    }
    if (bestStart < 0) {
      return full;
    }
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < bestStart; i++) {
      sb.append(g[i]).append(i + 1 < bestStart ? ":" : "");
    }
    sb.append("::");
    for (int i = bestStart + bestLen; i < g.length; i++) {
      sb.append(g[i]).append(i + 1 < g.length ? ":" : "");
    }
    return sb.toString();
  }
}
