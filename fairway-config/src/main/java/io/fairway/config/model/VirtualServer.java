package io.fairway.config.model;

import io.fairway.config.model.base.Location;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A {@code virtual_server} with keepalived's defaults and load-time adjustments applied (quorum
 * capped to the weight sum, hysteresis to quorum-1, persistence forced for port 0, real server
 * ports filled in, duplicate real servers dropped). Built by {@link #builder()}; its related
 * keywords are grouped in small records ({@link Scheduling}, {@link PersistenceSettings}, {@link
 * Quorum}, {@link SorryPolicy}, {@link ProxySettings}).
 *
 * @param location where the block was written
 * @param id the service's identity across reloads
 * @param name {@code name} (a Fairway extension); default {@code IP:PORT}, {@code fwmark:N} or
 *     {@code group:NAME}
 * @param scheduling {@code lb_algo}, its flags and parameters, and the Varnish director's
 * @param forwarding {@code lb_kind} (default NAT; PROXY for Varnish directors)
 * @param persistence {@code persistence_timeout}, {@code persistence_granularity}, {@code
 *     persistence_engine}
 * @param haSuspend suspend checkers while the address is not local ({@code ha_suspend})
 * @param omega run notify_down/quorum_down scripts at shutdown too
 * @param quorum {@code quorum}, {@code hysteresis}, {@code quorum_up}, {@code quorum_down}
 * @param sorry {@code sorry_server} and {@code overflow_to_sorry_server}
 * @param realServers the real servers, in file order
 * @param slowStart {@code slow_start} at virtual_server level (a Fairway extension), the default of
 *     its real servers; {@link Duration#ZERO} when not given
 * @param proxy the userspace data plane's settings ({@code proxy_timeouts}, {@code http_forwarded};
 *     Fairway extensions)
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
    Scheduling scheduling,
    Forwarding forwarding,
    PersistenceSettings persistence,
    boolean haSuspend,
    boolean omega,
    Quorum quorum,
    SorryPolicy sorry,
    List<RealServer> realServers,
    Duration slowStart,
    ProxySettings proxy,
    AccessLogs accessLogs,
    List<DnsDiscovery> discovery,
    boolean announce) {
  public VirtualServer {
    Objects.requireNonNull(scheduling, "scheduling");
    Objects.requireNonNull(persistence, "persistence");
    Objects.requireNonNull(quorum, "quorum");
    Objects.requireNonNull(sorry, "sorry");
    Objects.requireNonNull(proxy, "proxy");
    Objects.requireNonNull(accessLogs, "accessLogs");
    Objects.requireNonNull(slowStart, "slowStart");
    discovery = List.copyOf(discovery);
    realServers = List.copyOf(realServers);
  }

  /**
   * A builder with keepalived's defaults for everything but the location, id, name and forwarding.
   */
  public static Builder builder() {
    return new Builder();
  }

  /** A builder holding this virtual server's settings, to change some of them. */
  public Builder toBuilder() {
    return new Builder()
        .location(location)
        .id(id)
        .name(name)
        .scheduling(scheduling)
        .forwarding(forwarding)
        .persistence(persistence)
        .haSuspend(haSuspend)
        .omega(omega)
        .quorum(quorum)
        .sorry(sorry)
        .realServers(realServers)
        .slowStart(slowStart)
        .proxy(proxy)
        .accessLogs(accessLogs)
        .discovery(discovery)
        .announce(announce);
  }

  /**
   * The same virtual server with other real servers: those its {@code real_server_dns} blocks found
   * beside the written ones.
   */
  public VirtualServer withRealServers(List<RealServer> servers) {
    return toBuilder().realServers(servers).build();
  }

  /** True if persistence is on. */
  public boolean persistent() {
    return persistence.on();
  }

  /** The real server with this id, if any. */
  public Optional<RealServer> realServer(RealServerId rsId) {
    return realServers.stream().filter(rs -> rs.id().equals(rsId)).findFirst();
  }

  /**
   * Collects a virtual server's parts; location, id, name and forwarding have no default, the rest
   * start at keepalived's (or, for Fairway's extensions, at "none").
   */
  public static final class Builder {
    private @Nullable Location location;
    private @Nullable VirtualServerId id;
    private @Nullable String name;
    private Scheduling scheduling = Scheduling.DEFAULT;
    private @Nullable Forwarding forwarding;
    private PersistenceSettings persistence = PersistenceSettings.NONE;
    private boolean haSuspend;
    private boolean omega;
    private Quorum quorum = Quorum.DEFAULT;
    private SorryPolicy sorry = SorryPolicy.NONE;
    private List<RealServer> realServers = List.of();
    private Duration slowStart = Duration.ZERO;
    private ProxySettings proxy = ProxySettings.DEFAULTS;
    private AccessLogs accessLogs = AccessLogs.NONE;
    private List<DnsDiscovery> discovery = List.of();
    private boolean announce;

    private Builder() {}

    public Builder location(Location location) {
      this.location = location;
      return this;
    }

    public Builder id(VirtualServerId id) {
      this.id = id;
      return this;
    }

    public Builder name(String name) {
      this.name = name;
      return this;
    }

    public Builder scheduling(Scheduling scheduling) {
      this.scheduling = scheduling;
      return this;
    }

    public Builder forwarding(Forwarding forwarding) {
      this.forwarding = forwarding;
      return this;
    }

    public Builder persistence(PersistenceSettings persistence) {
      this.persistence = persistence;
      return this;
    }

    public Builder haSuspend(boolean haSuspend) {
      this.haSuspend = haSuspend;
      return this;
    }

    public Builder omega(boolean omega) {
      this.omega = omega;
      return this;
    }

    public Builder quorum(Quorum quorum) {
      this.quorum = quorum;
      return this;
    }

    public Builder sorry(SorryPolicy sorry) {
      this.sorry = sorry;
      return this;
    }

    public Builder realServers(List<RealServer> realServers) {
      this.realServers = realServers;
      return this;
    }

    public Builder slowStart(Duration slowStart) {
      this.slowStart = slowStart;
      return this;
    }

    public Builder proxy(ProxySettings proxy) {
      this.proxy = proxy;
      return this;
    }

    public Builder accessLogs(AccessLogs accessLogs) {
      this.accessLogs = accessLogs;
      return this;
    }

    public Builder discovery(List<DnsDiscovery> discovery) {
      this.discovery = discovery;
      return this;
    }

    public Builder announce(boolean announce) {
      this.announce = announce;
      return this;
    }

    /** The virtual server; location, id, name and forwarding must have been set. */
    public VirtualServer build() {
      return new VirtualServer(
          Objects.requireNonNull(location, "location"),
          Objects.requireNonNull(id, "id"),
          Objects.requireNonNull(name, "name"),
          scheduling,
          Objects.requireNonNull(forwarding, "forwarding"),
          persistence,
          haSuspend,
          omega,
          quorum,
          sorry,
          realServers,
          slowStart,
          proxy,
          accessLogs,
          discovery,
          announce);
    }
  }
}
