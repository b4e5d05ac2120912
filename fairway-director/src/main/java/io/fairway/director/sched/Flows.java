package io.fairway.director.sched;

import java.net.InetSocketAddress;

/**
 * Parsing of the key lines {@code fairway pick} reads for the kernel schedulers: {@code IP} or
 * {@code IP:PORT}, IPv4 or IPv6 ({@code [v6]:PORT}, or a bare v6 address).
 */
public final class Flows {
  private Flows() {}

  /**
   * Parses {@code IP}, {@code IP:PORT}, {@code [IPv6]:PORT} or a bare IPv6 address; port 0 when
   * absent.
   */
  public static InetSocketAddress parseHostPort(String text, String what) {
    String s = text.strip();
    String host = s;
    int port = 0;
    if (s.startsWith("[")) {
      int close = s.indexOf(']');
      if (close < 0) throw new IllegalArgumentException(what + " '" + text + "': missing ']'");
      host = s.substring(1, close);
      String rest = s.substring(close + 1);
      if (!rest.isEmpty()) {
        if (!rest.startsWith(":"))
          throw new IllegalArgumentException(what + " '" + text + "' is not [IPv6]:PORT");
        port = port(rest.substring(1), text, what);
      }
    } else if (s.indexOf(':') >= 0 && s.indexOf(':') == s.lastIndexOf(':')) {
      host = s.substring(0, s.indexOf(':'));
      port = port(s.substring(s.indexOf(':') + 1), text, what);
    }
    try {
      return new InetSocketAddress(AddressFold.parse(host), port);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          what + " '" + text + "' is not IP, IP:PORT or [IPv6]:PORT");
    }
  }

  private static int port(String p, String text, String what) {
    try {
      int n = Integer.parseInt(p);
      if (n < 0 || n > 65535) throw new NumberFormatException();
      return n;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          what + " '" + text + "': port '" + p + "' is not 0..65535");
    }
  }

  /**
   * The flow a {@code fairway pick} key line stands for: for sh and mh (and every other scheduler)
   * the line is the client; for dh it is the destination address.
   */
  public static Flow fromKeyLine(String scheduler, String line) {
    InetSocketAddress a = parseHostPort(line, "dh".equals(scheduler) ? "destination" : "client");
    if ("dh".equals(scheduler)) return new Flow(a.getAddress(), 0, a.getAddress(), a.getPort());
    return new Flow(a.getAddress(), a.getPort(), null, 0);
  }
}
