package io.fairway.config.model;

import io.fairway.config.model.base.Location;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A {@code real_server} block with its inherited defaults applied. Built by {@link #builder()}; its
 * related keywords are grouped in small records ({@link Thresholds}, {@link NotifyScripts}, {@link
 * BackendSettings}).
 *
 * @param location where the block was written
 * @param id address and port (the identity used across reloads)
 * @param name {@code name}, default {@code IP:PORT}
 * @param ident the shard director's ident ({@code ident}), default = name
 * @param weight the configured weight; an integer 0..2^31-1 for kernel schedulers, a non-negative
 *     decimal for Varnish directors (default: the virtual server's {@code weight}, 1)
 * @param forwarding {@code lvs_method}, default the virtual server's
 * @param thresholds the upper and lower connection thresholds (see {@link Thresholds})
 * @param inhibitOnFailure set weight 0 instead of removing a failed server
 * @param notifyScripts {@code notify_up} and {@code notify_down}
 * @param checkers its health checkers; empty means "always up"
 * @param checkPort the port the checkers connect to unless they set {@code connect_port}:
 *     keepalived's rule is the port written on the real_server, else the virtual server's. It
 *     differs from {@code id().port()} (what IPVS gets) for DR/TUN real servers whose written port
 *     is not the service's, and for DR/TUN real servers of fwmark and group services (IPVS port 0)
 * @param slowStart {@code slow_start} (a Fairway extension), its own or inherited from the virtual
 *     server: a server that comes up after start takes its share progressively over this time;
 *     {@link Duration#ZERO} = off
 * @param backend how the userspace data plane talks to it: {@code max_conns}, {@code send_proxy},
 *     {@code tls { }}, {@code http2} (Fairway extensions)
 * @param tier its backup tier: 0 for every written server; for one from a {@code real_server_dns}
 *     SRV answer, 0 for the lowest priority that resolves and 1, 2, ... for the higher ones, which
 *     stand by while a lower tier has a server up
 */
public record RealServer(
    Location location,
    RealServerId id,
    String name,
    String ident,
    double weight,
    Forwarding forwarding,
    Thresholds thresholds,
    boolean inhibitOnFailure,
    NotifyScripts notifyScripts,
    List<HealthCheck> checkers,
    int checkPort,
    Duration slowStart,
    BackendSettings backend,
    int tier) {
  public RealServer {
    Objects.requireNonNull(thresholds, "thresholds");
    Objects.requireNonNull(notifyScripts, "notifyScripts");
    Objects.requireNonNull(slowStart, "slowStart");
    Objects.requireNonNull(backend, "backend");
    checkers = List.copyOf(checkers);
    if (tier < 0) {
      throw new IllegalArgumentException("tier must be >= 0: " + tier);
    }
  }

  /**
   * A builder with the defaults of a written real server: weight 1, no thresholds, scripts,
   * checkers, slow start or backend settings, tier 0; location, id, name and forwarding have none
   * (the ident defaults to the name).
   */
  public static Builder builder() {
    return new Builder();
  }

  /** A builder holding this real server's settings, to change some of them. */
  public Builder toBuilder() {
    return new Builder()
        .location(location)
        .id(id)
        .name(name)
        .ident(ident)
        .weight(weight)
        .forwarding(forwarding)
        .thresholds(thresholds)
        .inhibitOnFailure(inhibitOnFailure)
        .notifyScripts(notifyScripts)
        .checkers(checkers)
        .checkPort(checkPort)
        .slowStart(slowStart)
        .backend(backend)
        .tier(tier);
  }

  /**
   * The weight as the table and the checkers carry it: the configured integer for kernel
   * schedulers; a Varnish director's decimal rounded up, so 0.5 is up (the director itself uses
   * {@link #weight()}). Every consumer (table, checkers, quorum, plan) uses this one rounding.
   */
  public int intWeight() {
    return (int) Math.min(Integer.MAX_VALUE, Math.max(0, (long) Math.ceil(weight)));
  }

  /** Collects a real server's parts. */
  public static final class Builder {
    private @Nullable Location location;
    private @Nullable RealServerId id;
    private @Nullable String name;
    private @Nullable String ident;
    private double weight = 1;
    private @Nullable Forwarding forwarding;
    private Thresholds thresholds = Thresholds.NONE;
    private boolean inhibitOnFailure;
    private NotifyScripts notifyScripts = NotifyScripts.NONE;
    private List<HealthCheck> checkers = List.of();
    private int checkPort;
    private Duration slowStart = Duration.ZERO;
    private BackendSettings backend = BackendSettings.NONE;
    private int tier;

    private Builder() {}

    public Builder location(Location location) {
      this.location = location;
      return this;
    }

    public Builder id(RealServerId id) {
      this.id = id;
      return this;
    }

    public Builder name(String name) {
      this.name = name;
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

    public Builder forwarding(Forwarding forwarding) {
      this.forwarding = forwarding;
      return this;
    }

    public Builder thresholds(Thresholds thresholds) {
      this.thresholds = thresholds;
      return this;
    }

    public Builder inhibitOnFailure(boolean inhibitOnFailure) {
      this.inhibitOnFailure = inhibitOnFailure;
      return this;
    }

    public Builder notifyScripts(NotifyScripts notifyScripts) {
      this.notifyScripts = notifyScripts;
      return this;
    }

    public Builder checkers(List<HealthCheck> checkers) {
      this.checkers = checkers;
      return this;
    }

    public Builder checkPort(int checkPort) {
      this.checkPort = checkPort;
      return this;
    }

    public Builder slowStart(Duration slowStart) {
      this.slowStart = slowStart;
      return this;
    }

    public Builder backend(BackendSettings backend) {
      this.backend = backend;
      return this;
    }

    public Builder tier(int tier) {
      this.tier = tier;
      return this;
    }

    /** The real server; location, id, name and forwarding must have been set. */
    public RealServer build() {
      String n = Objects.requireNonNull(name, "name");
      return new RealServer(
          Objects.requireNonNull(location, "location"),
          Objects.requireNonNull(id, "id"),
          n,
          ident != null ? ident : n,
          weight,
          Objects.requireNonNull(forwarding, "forwarding"),
          thresholds,
          inhibitOnFailure,
          notifyScripts,
          checkers,
          checkPort,
          slowStart,
          backend,
          tier);
    }
  }
}
