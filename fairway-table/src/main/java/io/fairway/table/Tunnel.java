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
    IPIP(0),
    GUE(1),
    GRE(2);

    private final int value;

    Type(int value) {
      this.value = value;
    }

    /** The kernel's number for this encapsulation. */
    public int value() {
      return value;
    }

    /** The encapsulation with the kernel's number {@code value}. */
    public static Type ofValue(int value) {
      for (Type t : values()) {
        if (t.value == value) {
          return t;
        }
      }
      throw new IllegalArgumentException("unknown tunnel type " + value);
    }
  }

  /** Checksum mode, with the kernel's IP_VS_TUNNEL_ENCAP_FLAG_* values. */
  public enum Checksum {
    NOCSUM(0),
    CSUM(1),
    REMCSUM(2);

    private final int value;

    Checksum(int value) {
      this.value = value;
    }

    /** The kernel's flags for this mode. */
    public int value() {
      return value;
    }

    /** The mode with the kernel's flags {@code value}. */
    public static Checksum ofValue(int value) {
      for (Checksum c : values()) {
        if (c.value == value) {
          return c;
        }
      }
      throw new IllegalArgumentException("unknown tunnel checksum mode " + value);
    }
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
