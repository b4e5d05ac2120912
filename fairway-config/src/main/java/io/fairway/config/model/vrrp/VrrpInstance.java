package io.fairway.config.model.vrrp;

import io.fairway.config.model.base.Location;
import io.fairway.table.AddressFamily;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * One {@code vrrp_instance NAME { }}, with keepalived's defaults and adjustments applied.
 *
 * @param location where the block starts
 * @param name the instance name (notify scripts get it)
 * @param initialState {@code state} (derived from the priority when not given, as keepalived)
 * @param interfaceName {@code interface}
 * @param virtualRouterId {@code virtual_router_id} 1..255
 * @param priority {@code priority} 1..255 (255 = address owner; default 100, or 255 for MASTER
 *     without a priority)
 * @param advertInterval {@code advert_int} (default 1 s; whole seconds for v2, 10 ms units for v3)
 * @param version 2 or 3
 * @param family the family of the virtual addresses (and so of the adverts)
 * @param virtualAddresses {@code virtual_ipaddress} (carried in adverts)
 * @param excludedAddresses {@code virtual_ipaddress_excluded} (added, not advertised)
 * @param preempt false when the block has a nopreempt line
 * @param preemptDelay {@code preempt_delay} (zero: none)
 * @param unicastSource {@code unicast_src_ip} (or {@code mcast_src_ip}), if given
 * @param unicastPeers {@code unicast_peer { }}; empty means multicast
 * @param authPass {@code authentication { auth_type PASS; auth_pass X }} (v2 only), up to 8 bytes
 * @param garpMasterDelay {@code garp_master_delay}
 * @param garpMasterRepeat {@code garp_master_repeat}
 * @param garpMasterRefresh {@code garp_master_refresh}
 * @param scripts the notify scripts
 * @param trackScripts {@code track_script { NAME [weight N [reverse]] }}
 * @param trackInterfaces {@code track_interface { IF [weight N [reverse]] }}
 * @param trackFiles {@code track_file { NAME [weight N [reverse]] }}
 * @param accept {@code accept} (accept packets to the VIPs as master; keepalived's default unless
 *     strict)
 * @param lvsSyncDaemonInterface the old {@code lvs_sync_daemon_interface}, if given
 */
public record VrrpInstance(
    Location location,
    String name,
    VrrpState initialState,
    String interfaceName,
    int virtualRouterId,
    int priority,
    Duration advertInterval,
    int version,
    AddressFamily family,
    List<VirtualAddress> virtualAddresses,
    List<VirtualAddress> excludedAddresses,
    boolean preempt,
    Duration preemptDelay,
    Optional<InetAddress> unicastSource,
    List<InetAddress> unicastPeers,
    Optional<String> authPass,
    Duration garpMasterDelay,
    int garpMasterRepeat,
    Optional<Duration> garpMasterRefresh,
    Notify scripts,
    List<Track> trackScripts,
    List<Track> trackInterfaces,
    List<Track> trackFiles,
    boolean accept,
    Optional<String> lvsSyncDaemonInterface) {
  /** The owner's priority: always master, never preempted. */
  public static final int OWNER_PRIORITY = 255;

  public VrrpInstance {
    virtualAddresses = List.copyOf(virtualAddresses);
    excludedAddresses = List.copyOf(excludedAddresses);
    unicastPeers = List.copyOf(unicastPeers);
    trackScripts = List.copyOf(trackScripts);
    trackInterfaces = List.copyOf(trackInterfaces);
    trackFiles = List.copyOf(trackFiles);
  }

  public boolean unicast() {
    return !unicastPeers.isEmpty();
  }

  /** Every address the master holds: advertised ones first, then the excluded ones. */
  public List<VirtualAddress> allAddresses() {
    return java.util.stream.Stream.concat(virtualAddresses.stream(), excludedAddresses.stream())
        .toList();
  }
}
