package io.fairway.plan;

import io.fairway.table.Dest;
import io.fairway.table.DestKey;
import io.fairway.table.ServiceKey;
import java.net.InetAddress;
import java.time.Duration;
import java.util.Objects;

/**
 * One real server of a service, with everything that decides a choice.
 *
 * @param where {@code FILE:LINE} of its {@code real_server}
 * @param name the name verdicts and {@code pick} use
 * @param ident the shard ring identity (default: the name)
 * @param weight the configured weight; a decimal for the Varnish directors
 * @param dest the destination as the table gets it: address, IPVS port, forwarding method,
 *     thresholds, tunnel, and the configured weight as an integer ({@link #tableWeight()})
 * @param checkPort the port the checkers connect to unless they set {@code connect_port}
 *     (keepalived: the port written on the real_server, else the service's)
 * @param inhibit drain instead of removing on failure
 * @param slowStart {@code slow_start} (effective, 0 = off): when it comes up after start the
 *     applier steps its table weight up over this time; zero for shard, which ramps by its {@code
 *     rampup}
 * @param maxConns {@code max_conns} (0 = none): the userspace data plane gives it at most this many
 *     live connections (L4) or requests (HTTP) at once and queues the rest; the kernel ignores it
 * @param proxyProtocol {@code send_proxy}: the PROXY header the userspace data plane writes on each
 *     new connection to it; the kernel ignores it
 * @param tls {@code tls { }}: the userspace data plane re-encrypts to it, verified; empty = plain
 *     TCP; the kernel ignores it
 * @param tier its backup tier (0 unless a higher SRV priority of {@code real_server_dns}): the
 *     applier keeps it out while a lower tier has a server up
 * @param http2 {@code http2}: the userspace data plane speaks HTTP/2 to it (h2 over {@code tls},
 *     h2c without); the kernel ignores it
 */
public record MemberPlan(
    String where,
    String name,
    String ident,
    double weight,
    Dest dest,
    int checkPort,
    boolean inhibit,
    Duration slowStart,
    int maxConns,
    io.fairway.config.model.ProxyProtocol proxyProtocol,
    java.util.Optional<io.fairway.config.model.BackendTls> tls,
    int tier,
    boolean http2) {

  /** In tier 0. */
  public MemberPlan(
      String where,
      String name,
      String ident,
      double weight,
      Dest dest,
      int checkPort,
      boolean inhibit,
      Duration slowStart,
      int maxConns,
      io.fairway.config.model.ProxyProtocol proxyProtocol,
      java.util.Optional<io.fairway.config.model.BackendTls> tls) {
    this(
        where,
        name,
        ident,
        weight,
        dest,
        checkPort,
        inhibit,
        slowStart,
        maxConns,
        proxyProtocol,
        tls,
        0,
        false);
  }

  public MemberPlan {
    // Callers outside the null-checked packages may still pass null for these three: they get the
    // defaults, as they always did.
    tls = tls == null ? java.util.Optional.empty() : tls;
    proxyProtocol =
        proxyProtocol == null ? io.fairway.config.model.ProxyProtocol.NONE : proxyProtocol;
    slowStart = slowStart == null ? Duration.ZERO : slowStart;
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(ident, "ident");
    Objects.requireNonNull(dest, "dest");
    if (maxConns < 0) {
      throw new IllegalArgumentException("maxConns must be >= 0: " + maxConns);
    }
    if (!(weight >= 0)) {
      throw new IllegalArgumentException("weight must be >= 0: " + weight);
    }
  }

  public MemberPlan(
      String where,
      String name,
      String ident,
      double weight,
      Dest dest,
      int checkPort,
      boolean inhibit,
      Duration slowStart,
      int maxConns) {
    this(
        where,
        name,
        ident,
        weight,
        dest,
        checkPort,
        inhibit,
        slowStart,
        maxConns,
        io.fairway.config.model.ProxyProtocol.NONE,
        java.util.Optional.empty());
  }

  /** Without {@code tls { }}. */
  public MemberPlan(
      String where,
      String name,
      String ident,
      double weight,
      Dest dest,
      int checkPort,
      boolean inhibit,
      Duration slowStart,
      int maxConns,
      io.fairway.config.model.ProxyProtocol proxyProtocol) {
    this(
        where,
        name,
        ident,
        weight,
        dest,
        checkPort,
        inhibit,
        slowStart,
        maxConns,
        proxyProtocol,
        java.util.Optional.empty());
  }

  public InetAddress address() {
    return dest.address();
  }

  /** The port IPVS gets for a plain address service (for DR/TUN, the service's). */
  public int tablePort() {
    return dest.port();
  }

  /**
   * The integer weight the table carries, which the applier moves between this and 0. A decimal
   * weight of a Varnish director rounds up, so 0.5 is "up" in the table; the director itself uses
   * {@link #weight()}.
   */
  public int tableWeight() {
    return dest.weight();
  }

  /**
   * The destination's key within one service: direct routing and tunnelling cannot change the port,
   * so their destinations take the service's (0 for a fwmark service), as keepalived's ipvs_cmd
   * does (ipvswrapper.c:601-621).
   */
  public DestKey keyIn(ServiceKey service) {
    int port = dest.port();
    if (dest.forwarding() != io.fairway.table.ForwardingMethod.MASQ) {
      port = service.isFwmark() ? 0 : service.port();
    }
    return new DestKey(dest.address(), port);
  }
}
