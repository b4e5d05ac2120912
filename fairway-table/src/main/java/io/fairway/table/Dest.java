package io.fairway.table;

import java.net.InetAddress;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A destination (real server) of a service: identity (address and port) and the state {@code
 * setDest} can change without dropping connections.
 *
 * @param address real server address
 * @param port real server port (for DR/TUN the service port; 0 for fwmark services)
 * @param forwarding forwarding method
 * @param weight weight, 0 to {@link Integer#MAX_VALUE}; 0 means quiesced: no new connections,
 *     existing ones continue
 * @param upperThreshold connections at which the kernel stops scheduling here, 0 = none
 * @param lowerThreshold connections below which it schedules here again, 0 = the 3/4 rule
 * @param tunnel encapsulation, only for {@link ForwardingMethod#TUNNEL}; otherwise {@code null}
 */
public record Dest(
    InetAddress address,
    int port,
    ForwardingMethod forwarding,
    int weight,
    int upperThreshold,
    int lowerThreshold,
    @Nullable Tunnel tunnel) {

  public Dest {
    Objects.requireNonNull(address, "address");
    Objects.requireNonNull(forwarding, "forwarding");
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("port out of range: " + port);
    }
    if (weight < 0) {
      throw new IllegalArgumentException("weight must be >= 0: " + weight);
    }
    if (upperThreshold < 0 || lowerThreshold < 0) {
      throw new IllegalArgumentException("thresholds must be >= 0");
    }
    if (tunnel != null && forwarding != ForwardingMethod.TUNNEL) {
      throw new IllegalArgumentException("a tunnel needs forwarding TUNNEL");
    }
  }

  /** A NAT destination with the given weight and no thresholds. */
  public static Dest of(InetAddress address, int port, int weight) {
    return new Dest(address, port, ForwardingMethod.MASQ, weight, 0, 0, null);
  }

  /** What identifies this destination within its service. */
  public DestKey key() {
    return new DestKey(address, port);
  }

  /**
   * This destination as the kernel reads it back. Tunnel settings the kernel does not keep are
   * dropped: plain IPIP (whatever its port or checksum) is {@code null}, which means the same, and
   * a GRE tunnel has no port. Compare normalized destinations when diffing what was written with
   * what is read.
   */
  public Dest normalized() {
    if (forwarding != ForwardingMethod.TUNNEL || tunnel == null) {
      return this;
    }
    Tunnel t =
        switch (tunnel.type()) {
          case IPIP -> null;
          case GRE ->
              tunnel.port() == 0 ? tunnel : new Tunnel(Tunnel.Type.GRE, 0, tunnel.checksum());
          case GUE -> tunnel;
        };
    return Objects.equals(t, tunnel)
        ? this
        : new Dest(address, port, forwarding, weight, upperThreshold, lowerThreshold, t);
  }

  public Dest withWeight(int w) {
    return new Dest(address, port, forwarding, w, upperThreshold, lowerThreshold, tunnel);
  }

  @Override
  public String toString() {
    return Endpoints.format(address, port) + " " + forwarding.ipvsadmName() + " w=" + weight;
  }
}
