package io.fairway.ipvs;

import java.net.Inet6Address;
import java.net.InetAddress;

/** Formatting of address:port pairs the way ipvsadm and keepalived print them. */
public final class Endpoints {
  private Endpoints() {}

  /** {@code 10.0.0.1:80} or {@code [2001:db8::1]:80}. */
  public static String format(InetAddress address, int port) {
    String host = address.getHostAddress();
    if (address instanceof Inet6Address) {
      int scope = host.indexOf('%');
      return "[" + (scope < 0 ? host : host.substring(0, scope)) + "]:" + port;
    }
    return host + ":" + port;
  }
}
