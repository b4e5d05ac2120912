package io.fairway.vrrp.io;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InterfaceAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.Collection;
import java.util.Optional;

/**
 * What VRRP needs to know about an interface, read fresh each time (the JDK asks the kernel): its
 * index, whether it is up and running, its MAC, and the source address adverts go out from.
 *
 * <p>A class rather than a record: a record would compare the MAC array by reference.
 */
public final class Link {
  private final String name;
  private final int index;
  private final boolean up;
  private final byte[] mac;
  private final Optional<InetAddress> ipv4;
  private final Optional<InetAddress> ipv6LinkLocal;

  /**
   * @param name the interface name
   * @param index the ifindex
   * @param up IFF_UP and IFF_RUNNING (carrier)
   * @param mac the hardware address (empty for interfaces without one)
   * @param ipv4 the first IPv4 address that is not a virtual address
   * @param ipv6LinkLocal the first IPv6 link-local address
   */
  public Link(
      String name,
      int index,
      boolean up,
      byte[] mac,
      Optional<InetAddress> ipv4,
      Optional<InetAddress> ipv6LinkLocal) {
    this.name = name;
    this.index = index;
    this.up = up;
    this.mac = mac;
    this.ipv4 = ipv4;
    this.ipv6LinkLocal = ipv6LinkLocal;
  }

  /** The interface name. */
  public String name() {
    return name;
  }

  /** The ifindex. */
  public int index() {
    return index;
  }

  /** IFF_UP and IFF_RUNNING (carrier). */
  public boolean up() {
    return up;
  }

  /** The hardware address (empty for interfaces without one); callers do not modify it. */
  public byte[] mac() {
    return mac;
  }

  /** The first IPv4 address that is not a virtual address. */
  public Optional<InetAddress> ipv4() {
    return ipv4;
  }

  /** The first IPv6 link-local address. */
  public Optional<InetAddress> ipv6LinkLocal() {
    return ipv6LinkLocal;
  }

  @Override
  public String toString() {
    return "Link[name="
        + name
        + ", index="
        + index
        + ", up="
        + up
        + ", ipv4="
        + ipv4
        + ", ipv6LinkLocal="
        + ipv6LinkLocal
        + "]";
  }

  /** The interface now, or empty if it does not exist. */
  public static Optional<Link> read(String name, Collection<InetAddress> exclude) {
    try {
      NetworkInterface ni = NetworkInterface.getByName(name);
      if (ni == null) {
        return Optional.empty();
      }
      Optional<InetAddress> v4 = Optional.empty();
      Optional<InetAddress> ll = Optional.empty();
      for (InterfaceAddress ia : ni.getInterfaceAddresses()) {
        InetAddress a = ia.getAddress();
        if (exclude.contains(a)) {
          continue;
        }
        if (a instanceof Inet4Address && v4.isEmpty()) {
          v4 = Optional.of(a);
        } else if (a instanceof Inet6Address && a.isLinkLocalAddress() && ll.isEmpty()) {
          // Without the scope: adverts compare plain addresses.
          ll = Optional.of(InetAddress.getByAddress(a.getAddress()));
        }
      }
      byte[] mac = ni.getHardwareAddress();
      return Optional.of(
          new Link(name, ni.getIndex(), ni.isUp(), mac == null ? new byte[0] : mac, v4, ll));
    } catch (SocketException | java.net.UnknownHostException e) {
      return Optional.empty();
    }
  }

  /** True when the address is configured on some interface other than {@code name}. */
  public static Optional<String> holderOtherThan(InetAddress a, String name) {
    try {
      var it = NetworkInterface.getNetworkInterfaces();
      while (it != null && it.hasMoreElements()) {
        NetworkInterface ni = it.nextElement();
        if (ni.getName().equals(name)) {
          continue;
        }
        for (InterfaceAddress ia : ni.getInterfaceAddresses()) {
          if (java.util.Arrays.equals(ia.getAddress().getAddress(), a.getAddress())) {
            return Optional.of(ni.getName());
          }
        }
      }
    } catch (SocketException e) {
      return Optional.empty();
    }
    return Optional.empty();
  }
}
