package io.fairway.table;

/**
 * The forwarder's connection-state timeouts, in seconds, as {@code ipvsadm --set tcp tcpfin udp}
 * sets them and {@code ipvsadm -L --timeout} shows them: how long an established TCP connection may
 * sit idle, how long one stays in FIN_WAIT after the first FIN, and how long a UDP "connection"
 * lives without a packet.
 *
 * <p>They are global to the network namespace, not per service: keepalived's {@code lvs_timeouts}
 * sets them for everything, including services it did not install.
 *
 * @param tcp established TCP idle timeout; 0 in a request means "leave as it is"
 * @param tcpFin TCP FIN_WAIT timeout; 0 in a request means "leave as it is"
 * @param udp UDP timeout; 0 in a request means "leave as it is"
 */
public record Timeouts(int tcp, int tcpFin, int udp) {
  /** The kernel's defaults (ip_vs_proto_tcp.c, ip_vs_proto_udp.c). */
  public static final Timeouts KERNEL_DEFAULTS = new Timeouts(900, 120, 300);

  public Timeouts {
    if (tcp < 0 || tcpFin < 0 || udp < 0) {
      throw new IllegalArgumentException(
          "timeouts must not be negative: " + tcp + " " + tcpFin + " " + udp);
    }
  }

  /** Whether this request changes nothing (every field 0). */
  public boolean isEmpty() {
    return tcp == 0 && tcpFin == 0 && udp == 0;
  }

  /** This request's non-zero fields over {@code base}: what the forwarder has after setting it. */
  public Timeouts over(Timeouts base) {
    return new Timeouts(
        tcp != 0 ? tcp : base.tcp, tcpFin != 0 ? tcpFin : base.tcpFin, udp != 0 ? udp : base.udp);
  }

  /** {@code ipvsadm -L --timeout}'s line: {@code Timeout (tcp tcpfin udp): 900 120 300}. */
  public String ipvsadmLine() {
    return "Timeout (tcp tcpfin udp): " + tcp + " " + tcpFin + " " + udp;
  }
}
