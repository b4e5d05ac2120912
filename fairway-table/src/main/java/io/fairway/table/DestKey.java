package io.fairway.table;

import java.net.InetAddress;
import java.util.Objects;

/** What identifies a destination within a service: address and port. */
public record DestKey(InetAddress address, int port) {
  public DestKey {
    Objects.requireNonNull(address, "address");
  }

  @Override
  public String toString() {
    return Endpoints.format(address, port);
  }
}
