package io.fairway.table;

import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One of the kernel's IPVS connection sync daemons ({@code ipvsadm --start-daemon}): a master
 * multicasts the connections its director creates, a backup receives them into its own connection
 * table, so a backup director that takes over the virtual addresses keeps forwarding established
 * connections. A kernel runs at most one of each.
 *
 * <p>In a request a zero (or null group) field is "the kernel's default"; what the kernel reports
 * back ({@code IPVS_CMD_GET_DAEMON}) has every field filled in.
 *
 * @param role master (sends) or backup (receives)
 * @param interfaceName the multicast interface ({@code mcast_ifn}), 1 to 15 bytes
 * @param syncId 0..255; sent in every sync message, and a backup with a non-zero id drops messages
 *     with another one
 * @param maxLen the UDP payload size; 0: the kernel's (1500 or the interface's MTU minus headers)
 * @param port the UDP port (the base one with several sync threads); 0: 8848
 * @param ttl the multicast TTL; 0: 1
 * @param group the multicast group; null: 224.0.0.81
 */
public record SyncDaemon(
    Role role,
    String interfaceName,
    int syncId,
    int maxLen,
    int port,
    int ttl,
    @Nullable InetAddress group) {

  /** Longest interface name the kernel takes ({@code IP_VS_IFNAME_MAXLEN - 1}). */
  public static final int MAX_INTERFACE_BYTES = 15;

  /** The kernel's defaults (ip_vs_sync.c): group 224.0.0.81, port 8848, TTL 1. */
  public static final int DEFAULT_PORT = 8848;

  /** A daemon's role; the numbers are the kernel's {@code IP_VS_STATE_MASTER/BACKUP}. */
  public enum Role {
    MASTER(1),
    BACKUP(2);

    private final int state;

    Role(int state) {
      this.state = state;
    }

    /** The kernel's {@code IPVS_DAEMON_ATTR_STATE} value. */
    public int state() {
      return state;
    }

    /** The role of a kernel state value. */
    public static Role ofState(int state) {
      for (Role r : values()) {
        if (r.state == state) {
          return r;
        }
      }
      throw new IllegalArgumentException(
          "sync daemon state "
              + Integer.toUnsignedString(state)
              + " is neither master (1) nor backup (2)");
    }

    /** {@code master} / {@code backup}, as ipvsadm and keepalived write it. */
    public String word() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  public SyncDaemon {
    Objects.requireNonNull(role, "role");
    Objects.requireNonNull(interfaceName, "interfaceName");
    int bytes = interfaceName.getBytes(StandardCharsets.UTF_8).length;
    if (bytes == 0 || bytes > MAX_INTERFACE_BYTES || interfaceName.indexOf('\0') >= 0) {
      throw new IllegalArgumentException(
          "sync daemon interface name '"
              + interfaceName
              + "' must be 1 to "
              + MAX_INTERFACE_BYTES
              + " bytes");
    }
    check("syncid", syncId, 255);
    check("maxlen", maxLen, 65535);
    check("port", port, 65535);
    check("ttl", ttl, 255);
    if (group != null && !group.isMulticastAddress()) {
      throw new IllegalArgumentException(
          "sync daemon group " + group.getHostAddress() + " is not a multicast address");
    }
  }

  private static void check(String what, int value, int max) {
    if (value < 0 || value > max) {
      throw new IllegalArgumentException(
          "sync daemon " + what + " " + value + " is out of range 0.." + max);
    }
  }

  /** A request for the kernel's defaults on {@code interfaceName}. */
  public static SyncDaemon of(Role role, String interfaceName, int syncId) {
    return new SyncDaemon(role, interfaceName, syncId, 0, 0, 0, null);
  }

  /** The same settings in another role. */
  public SyncDaemon as(Role other) {
    return new SyncDaemon(other, interfaceName, syncId, maxLen, port, ttl, group);
  }

  /**
   * {@code ipvsadm -L --daemon}'s line for a daemon the kernel reported: {@code master sync daemon
   * (mcast=eth0, syncid=51, maxlen=1472, group=224.0.0.81, port=8848, ttl=1)}. Fields the request
   * left at the default print only once the kernel filled them in.
   */
  public String ipvsadmLine() {
    StringBuilder b =
        new StringBuilder(role.word())
            .append(" sync daemon (mcast=")
            .append(interfaceName)
            .append(", syncid=")
            .append(syncId);
    if (maxLen != 0) {
      b.append(", maxlen=").append(maxLen);
    }
    if (group != null) {
      b.append(", group=").append(Endpoints.formatAddress(group));
    }
    if (port != 0) {
      b.append(", port=").append(port);
    }
    if (ttl != 0) {
      b.append(", ttl=").append(ttl);
    }
    return b.append(')').toString();
  }
}
