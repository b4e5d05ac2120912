package io.fairway.config.model;

import java.util.Objects;

/**
 * A forwarding method with its tunnel options: {@code lb_kind TUN type gue port 6080 csum}. For
 * anything but TUN the tunnel fields are {@link TunnelType#NONE}, 0 and {@link
 * TunnelChecksum#NONE}.
 *
 * @param method the forwarding method
 * @param tunnelType for TUN: ipip (default), gue or gre
 * @param tunnelPort for GUE: the UDP port (1..65535); otherwise 0
 * @param checksum for GUE/GRE: the checksum option
 */
public record Forwarding(
    LbKind method, TunnelType tunnelType, int tunnelPort, TunnelChecksum checksum) {

  /** The tunnel encapsulation of {@code lb_kind TUN type ...}. */
  public enum TunnelType {
    NONE,
    IPIP,
    GUE,
    GRE
  }

  /** The checksum option of a GUE/GRE tunnel. */
  public enum TunnelChecksum {
    NONE,
    NOCSUM,
    CSUM,
    REMCSUM
  }

  public Forwarding {
    Objects.requireNonNull(method, "method");
    Objects.requireNonNull(tunnelType, "tunnelType");
    Objects.requireNonNull(checksum, "checksum");
  }

  /** A plain method without tunnel options. */
  public static Forwarding of(LbKind method) {
    return new Forwarding(
        method, method == LbKind.TUN ? TunnelType.IPIP : TunnelType.NONE, 0, TunnelChecksum.NONE);
  }
}
