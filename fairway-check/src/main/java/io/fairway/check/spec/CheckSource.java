package io.fairway.check.spec;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import org.jspecify.annotations.Nullable;

/**
 * Where a network check leaves from: keepalived's {@code bindto}, {@code bind_port}, {@code
 * bind_if} and {@code fwmark}. An operator sets these when the path a check takes must be the path
 * client traffic takes: a source address the real server's firewall admits, a VLAN interface for a
 * link-local target, a mark that policy routing sends out of the right uplink. A check that
 * silently left from elsewhere could pass while traffic fails.
 *
 * @param address the source address ({@code bindto}), or {@code null} for the kernel's choice
 * @param port the source port ({@code bind_port}), 0 for the kernel's choice
 * @param bindInterface the device the socket is bound to ({@code bind_if}, SO_BINDTODEVICE), or
 *     {@code null}
 * @param fwmark the SO_MARK put on every packet of the check ({@code fwmark}), 0 for none
 */
public record CheckSource(
    @Nullable InetAddress address, int port, @Nullable String bindInterface, long fwmark) {
  /** No source constraints: the kernel picks address, port and route. */
  public static final CheckSource NONE = new CheckSource(null, 0, null, 0);

  /** Linux's IFNAMSIZ less the terminating NUL. */
  public static final int MAX_INTERFACE_NAME = 15;

  public CheckSource {
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("bind_port " + port + " is not in 1..65535");
    }
    if (fwmark < 0 || fwmark > 0xffff_ffffL) {
      throw new IllegalArgumentException("fwmark " + fwmark + " is not in 0..4294967295");
    }
    if (bindInterface != null
        && (bindInterface.isEmpty()
            || bindInterface.length() > MAX_INTERFACE_NAME
            || bindInterface.contains("/")
            || bindInterface.chars().anyMatch(Character::isWhitespace))) {
      throw new IllegalArgumentException(
          "bind_if \"" + bindInterface + "\" is not a valid interface name");
    }
  }

  /** Whether any constraint is set. */
  public boolean isSet() {
    return !equals(NONE);
  }

  /**
   * The address to bind the socket to before connecting to {@code target}, or {@code null} when
   * neither {@code bindto} nor {@code bind_port} is set. A bare {@code bind_port} binds the
   * wildcard address of the target's family.
   *
   * @throws IllegalArgumentException if {@code bindto} is of another address family than {@code
   *     target}
   */
  public @Nullable InetSocketAddress localAddress(InetAddress target) {
    if (address == null && port == 0) {
      return null;
    }
    if (address != null
        && target != null
        && (address instanceof Inet6Address) != (target instanceof Inet6Address)) {
      throw new IllegalArgumentException(
          "bindto " + text(address) + " is not of the address family of " + text(target));
    }
    InetAddress a = address;
    if (a == null) {
      a = target instanceof Inet6Address ? wildcard("::") : wildcard("0.0.0.0");
    }
    return new InetSocketAddress(a, port);
  }

  /**
   * The operator's words, e.g. {@code " from 127.0.0.2:4000 dev lo fwmark 7"}; empty when nothing
   * is set.
   */
  public String describe() {
    StringBuilder sb = new StringBuilder();
    if (address != null || port != 0) {
      sb.append(" from ");
      String a = address == null ? "*" : text(address);
      sb.append(address instanceof Inet6Address ? "[" + a + "]" : a);
      if (port != 0) {
        sb.append(':').append(port);
      }
    }
    if (bindInterface != null) {
      sb.append(" dev ").append(bindInterface);
    }
    if (fwmark != 0) {
      sb.append(" fwmark ").append(fwmark);
    }
    return sb.toString();
  }

  static String text(InetAddress a) {
    return a instanceof Inet6Address v6 ? Targets.compact(v6) : a.getHostAddress();
  }

  private static InetAddress wildcard(String literal) {
    try {
      return InetAddress.getByName(literal);
    } catch (java.net.UnknownHostException e) {
      throw new IllegalStateException(e);
    }
  }
}
