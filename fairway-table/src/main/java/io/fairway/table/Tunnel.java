package io.fairway.table;

import java.util.Objects;

/**
 * Tunnel encapsulation of a {@link ForwardingMethod#TUNNEL} destination.
 *
 * @param type IPIP, GUE or GRE
 * @param port the GUE port (required for GUE, 0 otherwise)
 * @param checksum checksum mode
 */
public record Tunnel(Type type, int port, Checksum checksum) {

  /** Encapsulation, with the kernel's IP_VS_CONN_F_TUNNEL_TYPE_* values. */
  public enum Type {
    IPIP,
    GUE,
    GRE
  }

  /** Checksum mode, with the kernel's IP_VS_TUNNEL_ENCAP_FLAG_* values. */
  public enum Checksum {
    NOCSUM,
    CSUM,
    REMCSUM
  }

  public static final Tunnel IPIP = new Tunnel(Type.IPIP, 0, Checksum.NOCSUM);

  public Tunnel {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(checksum, "checksum");
    if (type == Type.GUE && (port <= 0 || port > 65535)) {
      throw new IllegalArgumentException("a GUE tunnel needs a port");
    }
  }
}
