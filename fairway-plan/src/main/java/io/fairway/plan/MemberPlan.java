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

  /**
   * A builder for a member named {@code name} at {@code dest}, with the defaults of a {@code
   * real_server} that sets nothing else: no location, its name as shard identity, the destination's
   * weight and port, tier 0 and no slow start, limit, PROXY header, TLS or HTTP/2.
   */
  public static Builder builder(String name, Dest dest) {
    return new Builder(name, dest);
  }

  /** A builder that starts from this member. */
  public Builder toBuilder() {
    return new Builder(name, dest)
        .where(where)
        .ident(ident)
        .weight(weight)
        .checkPort(checkPort)
        .inhibit(inhibit)
        .slowStart(slowStart)
        .maxConns(maxConns)
        .proxyProtocol(proxyProtocol)
        .tls(tls)
        .tier(tier)
        .http2(http2);
  }

  /** Sets what differs from the defaults of {@link #builder}; the record checks the values. */
  public static final class Builder {
    private final String name;
    private final Dest dest;
    private String where = "";
    private String ident;
    private double weight;
    private int checkPort;
    private boolean inhibit;
    private Duration slowStart = Duration.ZERO;
    private int maxConns;
    private io.fairway.config.model.ProxyProtocol proxyProtocol =
        io.fairway.config.model.ProxyProtocol.NONE;
    private java.util.Optional<io.fairway.config.model.BackendTls> tls = java.util.Optional.empty();
    private int tier;
    private boolean http2;

    private Builder(String name, Dest dest) {
      this.name = name;
      this.dest = dest;
      this.ident = name;
      this.weight = dest.weight();
      this.checkPort = dest.port();
    }

    /** {@code FILE:LINE} of its {@code real_server}. */
    public Builder where(String where) {
      this.where = where;
      return this;
    }

    public Builder ident(String ident) {
      this.ident = ident;
      return this;
    }

    public Builder weight(double weight) {
      this.weight = weight;
      return this;
    }

    public Builder checkPort(int checkPort) {
      this.checkPort = checkPort;
      return this;
    }

    public Builder inhibit(boolean inhibit) {
      this.inhibit = inhibit;
      return this;
    }

    public Builder slowStart(Duration slowStart) {
      this.slowStart = slowStart;
      return this;
    }

    public Builder maxConns(int maxConns) {
      this.maxConns = maxConns;
      return this;
    }

    public Builder proxyProtocol(io.fairway.config.model.ProxyProtocol proxyProtocol) {
      this.proxyProtocol = proxyProtocol;
      return this;
    }

    public Builder tls(java.util.Optional<io.fairway.config.model.BackendTls> tls) {
      this.tls = tls;
      return this;
    }

    public Builder tier(int tier) {
      this.tier = tier;
      return this;
    }

    public Builder http2(boolean http2) {
      this.http2 = http2;
      return this;
    }

    public MemberPlan build() {
      return new MemberPlan(
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
          tier,
          http2);
    }
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
