package io.fairway.director.sched;

import java.net.Inet6Address;
import java.net.InetAddress;

/**
 * How one real server is configured: keepalived's {@code real_server IP PORT { weight uthreshold
 * lthreshold }}.
 *
 * @param name what {@code fairway pick} prints; {@code IP:PORT} unless the operator named it
 * @param weight 0 quiesces the server (existing connections continue, no new ones)
 * @param upperThreshold {@code uthreshold}: OVERLOAD is set when active+inactive reaches it (0 = no
 *     limit)
 * @param lowerThreshold {@code lthreshold}: OVERLOAD clears below it (0 = below 3/4 of the upper
 *     threshold)
 * @param maxConns Fairway's {@code max_conns}, not the kernel's: the server takes no new connection
 *     while it has this many active ones (0 = no limit). Unlike {@code uthreshold} it counts only
 *     live connections, so closed ones waiting out their expiry cannot keep a server full
 */
public record DestSpec(
    String name,
    InetAddress address,
    int port,
    int weight,
    int upperThreshold,
    int lowerThreshold,
    int maxConns) {

  /** Without {@code max_conns}: the kernel's own settings. */
  public DestSpec(
      String name,
      InetAddress address,
      int port,
      int weight,
      int upperThreshold,
      int lowerThreshold) {
    this(name, address, port, weight, upperThreshold, lowerThreshold, 0);
  }

  public DestSpec {
    if (address == null) throw new IllegalArgumentException("real server address is missing");
    if (port < 0 || port > 65535)
      throw new IllegalArgumentException("port " + port + " is out of range 0..65535");
    if (weight < 0) throw new IllegalArgumentException("weight " + weight + " is negative");
    if (upperThreshold < 0)
      throw new IllegalArgumentException("uthreshold " + upperThreshold + " is negative");
    if (lowerThreshold < 0)
      throw new IllegalArgumentException("lthreshold " + lowerThreshold + " is negative");
    if (maxConns < 0) throw new IllegalArgumentException("max_conns " + maxConns + " is negative");
    // The kernel answers ERANGE; an operator deserves the reason.
    if (lowerThreshold > upperThreshold) {
      throw new IllegalArgumentException(
          "lthreshold "
              + lowerThreshold
              + " is greater than uthreshold "
              + upperThreshold
              + (upperThreshold == 0 ? " (set uthreshold too)" : ""));
    }
    if (name == null || name.isEmpty()) name = defaultName(address, port);
  }

  /** A server with a weight and no thresholds. */
  public static DestSpec of(String ip, int port, int weight) {
    InetAddress a = AddressFold.parse(ip);
    return new DestSpec(defaultName(a, port), a, port, weight, 0, 0);
  }

  public DestSpec withWeight(int w) {
    return new DestSpec(name, address, port, w, upperThreshold, lowerThreshold, maxConns);
  }

  public DestSpec withThresholds(int upper, int lower) {
    return new DestSpec(name, address, port, weight, upper, lower, maxConns);
  }

  public DestSpec withName(String n) {
    return new DestSpec(n, address, port, weight, upperThreshold, lowerThreshold, maxConns);
  }

  public DestSpec withMaxConns(int m) {
    return new DestSpec(name, address, port, weight, upperThreshold, lowerThreshold, m);
  }

  boolean sameServer(InetAddress a, int p) {
    return address.equals(a) && port == p;
  }

  static String defaultName(InetAddress a, int port) {
    String ip = a.getHostAddress();
    return a instanceof Inet6Address ? "[" + ip + "]:" + port : ip + ":" + port;
  }
}
