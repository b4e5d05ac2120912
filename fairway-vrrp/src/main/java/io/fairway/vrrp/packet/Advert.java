package io.fairway.vrrp.packet;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.List;
import java.util.Optional;

/**
 * One VRRP advertisement.
 *
 * @param version 2 or 3
 * @param vrid the virtual router id, 1..255
 * @param priority 0 (the master is stopping) .. 255 (the address owner)
 * @param intervalCentis the advertisement interval in centiseconds (v2 carries whole seconds, so a
 *     multiple of 100 up to 25,500; v3 carries 12 bits of centiseconds, 1..4095)
 * @param addresses the virtual addresses (all IPv4 for v2 and for v3 over IPv4, all IPv6 for v3
 *     over IPv6), at most 255
 * @param authPass the v2 simple-text password (auth type 1), without its NUL padding; empty for no
 *     authentication and always for v3
 */
public record Advert(
    int version,
    int vrid,
    int priority,
    int intervalCentis,
    List<InetAddress> addresses,
    Optional<String> authPass) {
  public Advert {
    if (version != 2 && version != 3) {
      throw new IllegalArgumentException("version " + version);
    }
    if (vrid < 1 || vrid > 255) {
      throw new IllegalArgumentException("vrid " + vrid);
    }
    if (priority < 0 || priority > 255) {
      throw new IllegalArgumentException("priority " + priority);
    }
    if (version == 2
        ? intervalCentis < 100 || intervalCentis > 25500 || intervalCentis % 100 != 0
        : intervalCentis < 1 || intervalCentis > 4095) {
      throw new IllegalArgumentException("interval " + intervalCentis + " cs for v" + version);
    }
    addresses = List.copyOf(addresses);
    if (addresses.size() > 255) {
      throw new IllegalArgumentException(addresses.size() + " addresses");
    }
    boolean v4 = addresses.isEmpty() || addresses.get(0) instanceof Inet4Address;
    for (InetAddress a : addresses) {
      if ((a instanceof Inet4Address) != v4) {
        throw new IllegalArgumentException("mixed address families");
      }
    }
    if (version == 2 && !v4) {
      throw new IllegalArgumentException("VRRPv2 carries IPv4 only");
    }
    if (authPass.isPresent() && (version != 2 || authPass.get().length() > 8)) {
      throw new IllegalArgumentException("auth_pass is v2 only and at most 8 bytes");
    }
  }
}
