package io.fairway.config.model;

import io.fairway.config.model.base.Location;
import io.fairway.config.model.base.Script;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * A {@code real_server} block with its inherited defaults applied.
 *
 * @param id address and port (the identity used across reloads)
 * @param name {@code name}, default {@code IP:PORT}
 * @param ident the shard director's ident ({@code ident}), default = name
 * @param weight the configured weight; an integer 0..2^31-1 for kernel schedulers, a non-negative
 *     decimal for Varnish directors (default: the virtual server's {@code weight}, 1)
 * @param forwarding {@code lvs_method}, default the virtual server's
 * @param upperThreshold {@code uthreshold}, 0 for none
 * @param lowerThreshold {@code lthreshold}, 0 for none; never above upperThreshold
 * @param inhibitOnFailure set weight 0 instead of removing a failed server
 * @param notifyUp script run when the server comes up
 * @param notifyDown script run when it goes down
 * @param checkers its health checkers; empty means "always up"
 * @param checkPort the port the checkers connect to unless they set {@code connect_port}:
 *     keepalived's rule is the port written on the real_server, else the virtual server's. It
 *     differs from {@code id().port()} (what IPVS gets) for DR/TUN real servers whose written port
 *     is not the service's, and for DR/TUN real servers of fwmark and group services (IPVS port 0)
 * @param slowStart {@code slow_start} (a Fairway extension), its own or inherited from the virtual
 *     server: a server that comes up after start takes its share progressively over this time;
 *     {@link Duration#ZERO} = off
 * @param maxConns {@code max_conns} (a Fairway extension), its own or inherited from the virtual
 *     server: the userspace data plane gives this server at most this many connections (L4) or
 *     requests (HTTP) at once, counting only live ones; the kernel's IPVS has no such limit. 0 =
 *     none
 * @param proxyProtocol {@code send_proxy} (a Fairway extension): the PROXY header the userspace
 *     data plane writes on each new connection to this server; {@link ProxyProtocol#NONE} = none
 * @param tls {@code tls { }} (a Fairway extension): the userspace data plane re-encrypts to this
 *     server, verified; empty = plain TCP
 * @param tier its backup tier: 0 for every written server; for one from a {@code real_server_dns}
 *     SRV answer, 0 for the lowest priority that resolves and 1, 2, ... for the higher ones, which
 *     stand by while a lower tier has a server up
 * @param http2 {@code http2} (a Fairway extension): the userspace data plane speaks HTTP/2 to this
 *     server (h2 over its {@code tls { }}, h2c by prior knowledge without), one multiplexed
 *     connection per event loop; false = HTTP/1.1
 */
public record RealServer(
    Location location,
    RealServerId id,
    String name,
    String ident,
    double weight,
    Forwarding forwarding,
    long upperThreshold,
    long lowerThreshold,
    boolean inhibitOnFailure,
    Optional<Script> notifyUp,
    Optional<Script> notifyDown,
    List<HealthCheck> checkers,
    int checkPort,
    Duration slowStart,
    int maxConns,
    ProxyProtocol proxyProtocol,
    Optional<BackendTls> tls,
    int tier,
    boolean http2) {
  public RealServer {
    proxyProtocol = proxyProtocol == null ? ProxyProtocol.NONE : proxyProtocol;
    tls = tls == null ? Optional.empty() : tls;
    checkers = List.copyOf(checkers);
    slowStart = slowStart == null ? Duration.ZERO : slowStart;
    if (maxConns < 0) {
      throw new IllegalArgumentException("max_conns must be >= 0: " + maxConns);
    }
    if (tier < 0) {
      throw new IllegalArgumentException("tier must be >= 0: " + tier);
    }
  }

  /** In tier 0, as every written real server. */
  public RealServer(
      Location location,
      RealServerId id,
      String name,
      String ident,
      double weight,
      Forwarding forwarding,
      long upperThreshold,
      long lowerThreshold,
      boolean inhibitOnFailure,
      Optional<Script> notifyUp,
      Optional<Script> notifyDown,
      List<HealthCheck> checkers,
      int checkPort,
      Duration slowStart,
      int maxConns,
      ProxyProtocol proxyProtocol,
      Optional<BackendTls> tls) {
    this(
        location,
        id,
        name,
        ident,
        weight,
        forwarding,
        upperThreshold,
        lowerThreshold,
        inhibitOnFailure,
        notifyUp,
        notifyDown,
        checkers,
        checkPort,
        slowStart,
        maxConns,
        proxyProtocol,
        tls,
        0,
        false);
  }

  public RealServer(
      Location location,
      RealServerId id,
      String name,
      String ident,
      double weight,
      Forwarding forwarding,
      long upperThreshold,
      long lowerThreshold,
      boolean inhibitOnFailure,
      Optional<Script> notifyUp,
      Optional<Script> notifyDown,
      List<HealthCheck> checkers,
      int checkPort,
      Duration slowStart,
      int maxConns) {
    this(
        location,
        id,
        name,
        ident,
        weight,
        forwarding,
        upperThreshold,
        lowerThreshold,
        inhibitOnFailure,
        notifyUp,
        notifyDown,
        checkers,
        checkPort,
        slowStart,
        maxConns,
        ProxyProtocol.NONE,
        Optional.empty());
  }

  /** Without {@code tls { }}. */
  public RealServer(
      Location location,
      RealServerId id,
      String name,
      String ident,
      double weight,
      Forwarding forwarding,
      long upperThreshold,
      long lowerThreshold,
      boolean inhibitOnFailure,
      Optional<Script> notifyUp,
      Optional<Script> notifyDown,
      List<HealthCheck> checkers,
      int checkPort,
      Duration slowStart,
      int maxConns,
      ProxyProtocol proxyProtocol) {
    this(
        location,
        id,
        name,
        ident,
        weight,
        forwarding,
        upperThreshold,
        lowerThreshold,
        inhibitOnFailure,
        notifyUp,
        notifyDown,
        checkers,
        checkPort,
        slowStart,
        maxConns,
        proxyProtocol,
        Optional.empty());
  }

  /**
   * The weight as the table and the checkers carry it: the configured integer for kernel
   * schedulers; a Varnish director's decimal rounded up, so 0.5 is up (the director itself uses
   * {@link #weight()}). Every consumer (table, checkers, quorum, plan) uses this one rounding.
   */
  public int intWeight() {
    return (int) Math.min(Integer.MAX_VALUE, Math.max(0, (long) Math.ceil(weight)));
  }
}
