package io.fairway.config.model.vrrp;

import io.fairway.config.model.base.Location;
import java.net.InetAddress;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * keepalived's IPVS connection sync daemon: {@code global_defs { lvs_sync_daemon INTERFACE
 * [VRRP_INSTANCE] [id N] [maxlen N] [port N] [ttl N] [group ADDR] }}, or the older {@code
 * lvs_sync_daemon_interface INTERFACE} inside a {@code vrrp_instance}, resolved as keepalived 2.2.7
 * does (vrrp.c vrrp_complete_init, global_parser.c lvs_syncd_handler).
 *
 * <p>With an instance the daemon follows it: backup at start, master while the instance is master,
 * backup again when it leaves. Without one, a master and a backup daemon both run for as long as
 * Fairway does.
 *
 * @param location where the keyword is
 * @param interfaceName the multicast interface (at most 15 bytes)
 * @param instance the VRRP instance it follows; empty: master and backup both run
 * @param syncId {@code id} 0..255; default the instance's virtual_router_id for {@code
 *     lvs_sync_daemon INTERFACE INSTANCE}, 0 otherwise (also 0 for {@code
 *     lvs_sync_daemon_interface}, as keepalived 2.2.7 sets it)
 * @param maxLen {@code maxlen N}, N in 1..65507 (UDP payload); empty: the kernel's
 * @param port {@code port} 1..65535; empty: the kernel's 8848
 * @param ttl {@code ttl} 1..255; empty: the kernel's 1
 * @param group {@code group}, a multicast address; empty: the kernel's 224.0.0.81
 * @param inInstance true when given as {@code lvs_sync_daemon_interface} in the instance
 */
public record LvsSyncDaemon(
    Location location,
    String interfaceName,
    Optional<String> instance,
    int syncId,
    OptionalInt maxLen,
    OptionalInt port,
    OptionalInt ttl,
    Optional<InetAddress> group,
    boolean inInstance) {
  /** keepalived's bound for maxlen: a UDP payload in an IPv4 datagram (65535 - 20 - 8). */
  public static final int MAX_LEN = 65535 - 20 - 8;

  public LvsSyncDaemon {
    Objects.requireNonNull(location);
    Objects.requireNonNull(interfaceName);
    Objects.requireNonNull(instance);
    Objects.requireNonNull(maxLen);
    Objects.requireNonNull(port);
    Objects.requireNonNull(ttl);
    Objects.requireNonNull(group);
    if (inInstance && instance.isEmpty()) {
      throw new IllegalArgumentException("lvs_sync_daemon_interface belongs to an instance");
    }
  }
}
