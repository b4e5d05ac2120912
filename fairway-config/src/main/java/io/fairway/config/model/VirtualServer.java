package io.fairway.config.model;

import io.fairway.config.model.base.Location;
import io.fairway.config.model.base.Script;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A {@code virtual_server} with keepalived's defaults and load-time adjustments applied (quorum
 * capped to the weight sum, hysteresis to quorum-1, persistence forced for port 0, real server
 * ports filled in, duplicate real servers dropped).
 *
 * @param id the service's identity across reloads
 * @param name {@code name} (a Fairway extension); default {@code IP:PORT}, {@code fwmark:N} or
 *     {@code group:NAME}
 * @param scheduler {@code lb_algo} (default wlc)
 * @param director the Varnish director's parameters, {@link DirectorSpec.None} otherwise
 * @param hashBalanceFactor bounded-load factor in percent for mh/shard ({@code
 *     hash_balance_factor}); 0 = off, otherwise above 100
 * @param forwarding {@code lb_kind} (default NAT; PROXY for Varnish directors)
 * @param flags scheduler flags ({@code flag-N}, {@code sh-port}, {@code ops}, ...)
 * @param persistenceTimeout {@code persistence_timeout}; zero when not persistent
 * @param persistenceGranularity netmask prefix length of {@code persistence_granularity}, if set
 * @param persistenceEngine {@code persistence_engine}, if set
 * @param haSuspend suspend checkers while the address is not local ({@code ha_suspend})
 * @param omega run notify_down/quorum_down scripts at shutdown too
 * @param quorum minimum weight sum of alive real servers (effective: capped to the weight sum)
 * @param hysteresis quorum hysteresis (effective: at most quorum - 1)
 * @param quorumUp script run when quorum is gained
 * @param quorumDown script run when quorum is lost
 * @param sorryServer the server used while quorum is lost
 * @param realServers the real servers, in file order
 * @param overflowToSorryServer {@code overflow_to_sorry_server} (a Fairway extension): new
 *     connections go to the sorry server while every real server is over its {@code uthreshold} or
 *     quiesced, on the kernel's IPVS and on the userspace plane alike; off, both refuse them as the
 *     kernel does
 * @param slowStart {@code slow_start} at virtual_server level (a Fairway extension), the default of
 *     its real servers; {@link Duration#ZERO} when not given
 * @param proxy the userspace data plane's settings ({@code proxy_timeouts}, {@code http_forwarded};
 *     Fairway extensions)
 * @param layout the director's layering: named directors, the members of the virtual_server's
 *     director, the {@code alt_header} (Fairway extensions); {@link DirectorLayout#NONE} without
 * @param accessLogs {@code access_log} lines (a Fairway extension); {@link AccessLogs#NONE} without
 * @param discovery its {@code real_server_dns} blocks (a Fairway extension), in file order; the
 *     servers they found are not in the file's model but in the one the daemon derives from it
 * @param announce {@code announce} (a Fairway extension): keep a host route for the address in
 *     {@code global_defs}' {@code announce_table} while this service can serve
 */
public record VirtualServer(
    Location location,
    VirtualServerId id,
    String name,
    Scheduler scheduler,
    DirectorSpec director,
    int hashBalanceFactor,
    Forwarding forwarding,
    Set<SchedulerFlag> flags,
    Duration persistenceTimeout,
    Optional<Integer> persistenceGranularity,
    Optional<String> persistenceEngine,
    boolean haSuspend,
    boolean omega,
    long quorum,
    long hysteresis,
    Optional<Script> quorumUp,
    Optional<Script> quorumDown,
    Optional<SorryServer> sorryServer,
    List<RealServer> realServers,
    boolean overflowToSorryServer,
    Duration slowStart,
    ProxySettings proxy,
    DirectorLayout layout,
    AccessLogs accessLogs,
    List<DnsDiscovery> discovery,
    boolean announce) {
  public VirtualServer {
    java.util.Objects.requireNonNull(proxy, "proxy");
    accessLogs = accessLogs == null ? AccessLogs.NONE : accessLogs;
    discovery = discovery == null ? List.of() : List.copyOf(discovery);
    layout = layout == null ? DirectorLayout.NONE : layout;
    flags = Set.copyOf(flags);
    realServers = List.copyOf(realServers);
    slowStart = slowStart == null ? Duration.ZERO : slowStart;
  }

  /** Without access logs, {@code real_server_dns} or announcing. */
  public VirtualServer(
      Location location,
      VirtualServerId id,
      String name,
      Scheduler scheduler,
      DirectorSpec director,
      int hashBalanceFactor,
      Forwarding forwarding,
      Set<SchedulerFlag> flags,
      Duration persistenceTimeout,
      Optional<Integer> persistenceGranularity,
      Optional<String> persistenceEngine,
      boolean haSuspend,
      boolean omega,
      long quorum,
      long hysteresis,
      Optional<Script> quorumUp,
      Optional<Script> quorumDown,
      Optional<SorryServer> sorryServer,
      List<RealServer> realServers,
      boolean overflowToSorryServer,
      Duration slowStart,
      ProxySettings proxy,
      DirectorLayout layout) {
    this(
        location,
        id,
        name,
        scheduler,
        director,
        hashBalanceFactor,
        forwarding,
        flags,
        persistenceTimeout,
        persistenceGranularity,
        persistenceEngine,
        haSuspend,
        omega,
        quorum,
        hysteresis,
        quorumUp,
        quorumDown,
        sorryServer,
        realServers,
        overflowToSorryServer,
        slowStart,
        proxy,
        layout,
        AccessLogs.NONE,
        List.of(),
        false);
  }

  /** Without layering. */
  public VirtualServer(
      Location location,
      VirtualServerId id,
      String name,
      Scheduler scheduler,
      DirectorSpec director,
      int hashBalanceFactor,
      Forwarding forwarding,
      Set<SchedulerFlag> flags,
      Duration persistenceTimeout,
      Optional<Integer> persistenceGranularity,
      Optional<String> persistenceEngine,
      boolean haSuspend,
      boolean omega,
      long quorum,
      long hysteresis,
      Optional<Script> quorumUp,
      Optional<Script> quorumDown,
      Optional<SorryServer> sorryServer,
      List<RealServer> realServers,
      boolean overflowToSorryServer,
      Duration slowStart,
      ProxySettings proxy) {
    this(
        location,
        id,
        name,
        scheduler,
        director,
        hashBalanceFactor,
        forwarding,
        flags,
        persistenceTimeout,
        persistenceGranularity,
        persistenceEngine,
        haSuspend,
        omega,
        quorum,
        hysteresis,
        quorumUp,
        quorumDown,
        sorryServer,
        realServers,
        overflowToSorryServer,
        slowStart,
        proxy,
        DirectorLayout.NONE);
  }

  /**
   * The same virtual server with other real servers: those its {@code real_server_dns} blocks found
   * beside the written ones.
   */
  public VirtualServer withRealServers(List<RealServer> servers) {
    return new VirtualServer(
        location,
        id,
        name,
        scheduler,
        director,
        hashBalanceFactor,
        forwarding,
        flags,
        persistenceTimeout,
        persistenceGranularity,
        persistenceEngine,
        haSuspend,
        omega,
        quorum,
        hysteresis,
        quorumUp,
        quorumDown,
        sorryServer,
        servers,
        overflowToSorryServer,
        slowStart,
        proxy,
        layout,
        accessLogs,
        discovery,
        announce);
  }

  /** True if persistence is on. */
  public boolean persistent() {
    return !persistenceTimeout.isZero();
  }

  /** The real server with this id, if any. */
  public Optional<RealServer> realServer(RealServerId rsId) {
    return realServers.stream().filter(rs -> rs.id().equals(rsId)).findFirst();
  }

  /** The OR of the IP_VS_SVC_F_* bits of {@link #flags()} (persistence not included). */
  public int flagBits() {
    int bits = 0;
    for (SchedulerFlag f : flags) {
      bits |= f.bits();
    }
    return bits;
  }
}
