package io.fairway.vrrp;

import io.fairway.vrrp.view.DropKind;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InterfaceAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Drops adverts whose IP source no VRRP router can have: the unspecified address, a multicast or
 * broadcast address, or one of this router's own. Each would otherwise take part in the election as
 * a master at that address: the kernel delivers an advert from 0.0.0.0 to the link-local group
 * 224.0.0.18, and one from our own address is a forgery or a loop, never a peer.
 *
 * <p>The interface's addresses and subnet broadcasts are read from the kernel at most once a second
 * per interface (the JDK enumerates every interface to read one), so a flood of adverts costs a
 * lookup each, not a system call each.
 *
 * <p>Not thread safe: the speaker's event thread uses it.
 */
final class AdvertSourceFilter {
  private static final long REFRESH_NANOS = 1_000_000_000L;
  private static final InetAddress LIMITED_BROADCAST = v4(255, 255, 255, 255);

  /** One interface's addresses and IPv4 subnet broadcasts, as read at {@code readAt}. */
  private record Local(Set<InetAddress> addresses, Set<InetAddress> broadcasts, long readAt) {}

  private final Map<String, Local> byInterface = new HashMap<>();

  /**
   * Why an advert from {@code source} received on {@code interfaceName} is dropped, or empty to
   * take it.
   *
   * @param sources the source addresses this router's instances on that socket send from
   * @param now the caller's clock, nanoseconds
   */
  Optional<DropKind> check(
      InetAddress source, String interfaceName, Collection<InetAddress> sources, long now) {
    if (source.isAnyLocalAddress()) {
      return Optional.of(DropKind.SOURCE_UNSPECIFIED);
    }
    if (source.isMulticastAddress()) {
      return Optional.of(DropKind.SOURCE_MULTICAST);
    }
    Local local = local(interfaceName, now);
    if (source.equals(LIMITED_BROADCAST) || local.broadcasts().contains(source)) {
      return Optional.of(DropKind.SOURCE_BROADCAST);
    }
    if (sources.contains(source) || local.addresses().contains(source)) {
      return Optional.of(DropKind.SOURCE_OURS);
    }
    return Optional.empty();
  }

  private Local local(String name, long now) {
    Local l = byInterface.get(name);
    if (l == null || now - l.readAt() >= REFRESH_NANOS) {
      l = read(name, now);
      byInterface.put(name, l);
    }
    return l;
  }

  private static Local read(String name, long now) {
    Set<InetAddress> addresses = new HashSet<>();
    Set<InetAddress> broadcasts = new HashSet<>();
    try {
      NetworkInterface ni = NetworkInterface.getByName(name);
      if (ni != null) {
        for (InterfaceAddress ia : ni.getInterfaceAddresses()) {
          addresses.add(unscoped(ia.getAddress()));
          if (ia.getBroadcast() != null) {
            broadcasts.add(ia.getBroadcast());
          }
          subnetBroadcast(ia).ifPresent(broadcasts::add);
        }
      }
    } catch (SocketException e) {
      // Gone or unreadable: nothing of ours to compare with until the next read.
    }
    return new Local(Set.copyOf(addresses), Set.copyOf(broadcasts), now);
  }

  /**
   * The all-ones host part of an IPv4 prefix shorter than /31: an address added without {@code brd}
   * has no broadcast of its own, yet the subnet's is no router's.
   */
  static Optional<InetAddress> subnetBroadcast(InterfaceAddress ia) {
    int len = ia.getNetworkPrefixLength();
    if (!(ia.getAddress() instanceof Inet4Address) || len < 1 || len >= 31) {
      return Optional.empty();
    }
    byte[] b = ia.getAddress().getAddress();
    int host = -1 >>> len;
    int v = ((b[0] & 0xff) << 24 | (b[1] & 0xff) << 16 | (b[2] & 0xff) << 8 | (b[3] & 0xff)) | host;
    return Optional.of(v4(v >>> 24, (v >>> 16) & 0xff, (v >>> 8) & 0xff, v & 0xff));
  }

  /** Received sources carry no scope: compare plain addresses. */
  private static InetAddress unscoped(InetAddress a) {
    if (a instanceof Inet4Address) {
      return a;
    }
    try {
      return InetAddress.getByAddress(a.getAddress());
    } catch (java.net.UnknownHostException e) {
      throw new AssertionError(e);
    }
  }

  private static InetAddress v4(int a, int b, int c, int d) {
    try {
      return InetAddress.getByAddress(new byte[] {(byte) a, (byte) b, (byte) c, (byte) d});
    } catch (java.net.UnknownHostException e) {
      throw new AssertionError(e);
    }
  }
}
