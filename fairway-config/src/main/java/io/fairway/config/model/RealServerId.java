package io.fairway.config.model;

import io.fairway.config.model.base.Addresses;
import io.fairway.table.AddressFamily;
import java.net.InetAddress;
import java.util.Objects;

/**
 * The identity of a real server within its virtual server: address and port (the port is 0 for real
 * servers of fwmark services under DR/TUN). A reload keeps the health state of a real server whose
 * id is unchanged.
 */
public record RealServerId(InetAddress address, int port) {
  public RealServerId {
    Objects.requireNonNull(address, "address");
  }

  public AddressFamily family() {
    return AddressFamily.of(address);
  }

  @Override
  public String toString() {
    return Addresses.formatWithPort(address, port);
  }
}
