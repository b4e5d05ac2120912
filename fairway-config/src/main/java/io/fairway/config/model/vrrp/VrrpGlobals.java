package io.fairway.config.model.vrrp;

import java.time.Duration;
import java.util.Optional;

/**
 * The VRRP keywords of {@code global_defs}, the defaults every instance starts from.
 *
 * @param version {@code vrrp_version} (2 or 3; default 2; IPv6 instances always use 3)
 * @param garpMasterDelay {@code vrrp_garp_master_delay}: second burst after becoming master (5 s)
 * @param garpMasterRepeat {@code vrrp_garp_master_repeat}: gratuitous ARPs per burst (5)
 * @param garpMasterRefresh {@code vrrp_garp_master_refresh}: periodic ARPs while master (none)
 * @param garpMasterRefreshRepeat {@code vrrp_garp_master_refresh_repeat} (1)
 * @param garpInterval {@code vrrp_garp_interval}: delay between gratuitous ARPs (0)
 * @param gnaInterval {@code vrrp_gna_interval}: delay between neighbour advertisements (0)
 * @param lowerPrioNoAdvert {@code vrrp_lower_prio_no_advert}
 * @param skipCheckAdvAddr {@code vrrp_skip_check_adv_addr}: accept adverts whose address list
 *     differs from ours
 * @param strict {@code vrrp_strict}: RFC-strict mode (no unicast, no PASS auth, v2 without IPv6)
 * @param mcastGroup4 {@code vrrp_mcast_group4} (224.0.0.18)
 * @param mcastGroup6 {@code vrrp_mcast_group6} (ff02::12)
 * @param startupDelay {@code vrrp_startup_delay}, if given
 */
public record VrrpGlobals(
    int version,
    Duration garpMasterDelay,
    int garpMasterRepeat,
    Optional<Duration> garpMasterRefresh,
    int garpMasterRefreshRepeat,
    Duration garpInterval,
    Duration gnaInterval,
    boolean lowerPrioNoAdvert,
    boolean skipCheckAdvAddr,
    boolean strict,
    java.net.InetAddress mcastGroup4,
    java.net.InetAddress mcastGroup6,
    Optional<Duration> startupDelay) {

  public static final java.net.InetAddress GROUP4 = literal(new byte[] {(byte) 224, 0, 0, 18});
  public static final java.net.InetAddress GROUP6 =
      literal(new byte[] {(byte) 0xff, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x12});

  private static java.net.InetAddress literal(byte[] b) {
    try {
      return java.net.InetAddress.getByAddress(b);
    } catch (java.net.UnknownHostException e) {
      throw new AssertionError(e);
    }
  }

  public static VrrpGlobals defaults() {
    return builder().build();
  }

  /** A builder holding {@link #defaults()}. */
  public static Builder builder() {
    return new Builder();
  }

  /** A builder holding these values, to change some of them. */
  public Builder toBuilder() {
    return new Builder(this);
  }

  /**
   * Sets one keyword at a time, as {@code global_defs} gives them; each setter is the record
   * component of the same name, and the defaults are the field initialisers.
   */
  public static final class Builder {
    private int version = 2;
    private Duration garpMasterDelay = Duration.ofSeconds(5);
    private int garpMasterRepeat = 5;
    private Optional<Duration> garpMasterRefresh = Optional.empty();
    private int garpMasterRefreshRepeat = 1;
    private Duration garpInterval = Duration.ZERO;
    private Duration gnaInterval = Duration.ZERO;
    private boolean lowerPrioNoAdvert = false;
    private boolean skipCheckAdvAddr = false;
    private boolean strict = false;
    private java.net.InetAddress mcastGroup4 = GROUP4;
    private java.net.InetAddress mcastGroup6 = GROUP6;
    private Optional<Duration> startupDelay = Optional.empty();

    private Builder() {}

    private Builder(VrrpGlobals g) {
      version = g.version;
      garpMasterDelay = g.garpMasterDelay;
      garpMasterRepeat = g.garpMasterRepeat;
      garpMasterRefresh = g.garpMasterRefresh;
      garpMasterRefreshRepeat = g.garpMasterRefreshRepeat;
      garpInterval = g.garpInterval;
      gnaInterval = g.gnaInterval;
      lowerPrioNoAdvert = g.lowerPrioNoAdvert;
      skipCheckAdvAddr = g.skipCheckAdvAddr;
      strict = g.strict;
      mcastGroup4 = g.mcastGroup4;
      mcastGroup6 = g.mcastGroup6;
      startupDelay = g.startupDelay;
    }

    public Builder version(int v) {
      version = v;
      return this;
    }

    public Builder garpMasterDelay(Duration d) {
      garpMasterDelay = d;
      return this;
    }

    public Builder garpMasterRepeat(int n) {
      garpMasterRepeat = n;
      return this;
    }

    public Builder garpMasterRefresh(Optional<Duration> d) {
      garpMasterRefresh = d;
      return this;
    }

    public Builder garpMasterRefreshRepeat(int n) {
      garpMasterRefreshRepeat = n;
      return this;
    }

    public Builder garpInterval(Duration d) {
      garpInterval = d;
      return this;
    }

    public Builder gnaInterval(Duration d) {
      gnaInterval = d;
      return this;
    }

    public Builder lowerPrioNoAdvert(boolean on) {
      lowerPrioNoAdvert = on;
      return this;
    }

    public Builder skipCheckAdvAddr(boolean on) {
      skipCheckAdvAddr = on;
      return this;
    }

    public Builder strict(boolean on) {
      strict = on;
      return this;
    }

    public Builder mcastGroup4(java.net.InetAddress a) {
      mcastGroup4 = a;
      return this;
    }

    public Builder mcastGroup6(java.net.InetAddress a) {
      mcastGroup6 = a;
      return this;
    }

    public Builder startupDelay(Optional<Duration> d) {
      startupDelay = d;
      return this;
    }

    public VrrpGlobals build() {
      return new VrrpGlobals(
          version,
          garpMasterDelay,
          garpMasterRepeat,
          garpMasterRefresh,
          garpMasterRefreshRepeat,
          garpInterval,
          gnaInterval,
          lowerPrioNoAdvert,
          skipCheckAdvAddr,
          strict,
          mcastGroup4,
          mcastGroup6,
          startupDelay);
    }
  }
}
