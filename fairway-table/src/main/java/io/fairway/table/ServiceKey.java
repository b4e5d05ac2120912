package io.fairway.table;

import java.net.InetAddress;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What identifies a virtual service in the table: protocol, address and port, or a firewall mark
 * and family. Two services with equal keys are the same kernel entry, so this is also what a reload
 * diffs on.
 *
 * @param family address family; for a fwmark service, which family's packets it matches
 * @param protocol the protocol of an address service; {@code null} for a fwmark service
 * @param address the virtual address; {@code null} for a fwmark service
 * @param port the virtual port, 0 to 65535 (0 only for persistent services); 0 for fwmark
 * @param fwmark the firewall mark, or 0 for an address service
 */
public record ServiceKey(
    AddressFamily family,
    @Nullable Protocol protocol,
    @Nullable InetAddress address,
    int port,
    int fwmark) {

  public ServiceKey {
    Objects.requireNonNull(family, "family");
    if (fwmark != 0) {
      if (protocol != null || address != null || port != 0) {
        throw new IllegalArgumentException("a fwmark service has no protocol, address or port");
      }
    } else {
      Objects.requireNonNull(protocol, "protocol");
      Objects.requireNonNull(address, "address");
      if (AddressFamily.of(address) != family) {
        throw new IllegalArgumentException("address " + address + " is not " + family);
      }
      if (port < 0 || port > 65535) {
        throw new IllegalArgumentException("port out of range: " + port);
      }
    }
  }

  /** An address-based service. */
  public static ServiceKey of(Protocol protocol, InetAddress address, int port) {
    return new ServiceKey(AddressFamily.of(address), protocol, address, port, 0);
  }

  /** A firewall-mark service. */
  public static ServiceKey fwmark(AddressFamily family, int mark) {
    if (mark == 0) {
      throw new IllegalArgumentException("fwmark must be non-zero");
    }
    return new ServiceKey(family, null, null, 0, mark);
  }

  /** Whether this is a firewall-mark service. */
  public boolean isFwmark() {
    return fwmark != 0;
  }

  /** As ipvsadm prints it: {@code TCP 10.0.0.1:80}, {@code TCP [::1]:80}, {@code FWM 7}. */
  @Override
  public String toString() {
    if (isFwmark()) {
      return "FWM " + fwmark + (family == AddressFamily.INET6 ? " IPv6" : "");
    }
    // Not a fwmark service, so the constructor required an address.
    return protocol + " " + Endpoints.format(Objects.requireNonNull(address), port);
  }
}
