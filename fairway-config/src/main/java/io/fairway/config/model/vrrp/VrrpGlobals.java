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
    return new VrrpGlobals(
        2,
        Duration.ofSeconds(5),
        5,
        Optional.empty(),
        1,
        Duration.ZERO,
        Duration.ZERO,
        false,
        false,
        false,
        GROUP4,
        GROUP6,
        Optional.empty());
  }
}
