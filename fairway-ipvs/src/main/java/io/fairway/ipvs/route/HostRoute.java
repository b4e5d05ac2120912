package io.fairway.ipvs.route;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.Objects;

/**
 * One announced host route: {@code address/32} (or {@code /128}) through interface {@code ifindex},
 * in a routing table.
 *
 * @param address the announced address
 * @param ifindex the interface the route points at ({@code lo} is 1 in every namespace)
 * @param table the kernel routing table
 */
public record HostRoute(InetAddress address, int ifindex, int table) {
  /** The loopback interface's index, the same in every network namespace. */
  public static final int LOOPBACK = 1;

  public HostRoute {
    Objects.requireNonNull(address, "address");
    if (ifindex <= 0) {
      throw new IllegalArgumentException("interface index must be positive: " + ifindex);
    }
    if (table <= 0 || table == 253 || table == 254 || table == 255) {
      throw new IllegalArgumentException(
          "table " + table + " is reserved (default, main and local are the kernel's own)");
    }
  }

  /** 32 or 128. */
  public int prefixLength() {
    return address instanceof Inet4Address ? 32 : 128;
  }

  @Override
  public String toString() {
    return address.getHostAddress() + "/" + prefixLength() + " dev#" + ifindex + " table " + table;
  }
}
