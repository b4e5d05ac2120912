package io.fairway.config;

import io.fairway.config.model.vrrp.VrrpGlobals;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The VRRP keywords of {@code global_defs} as a keyword table: each line refines the globals every
 * vrrp_instance starts from, so they are read before any instance is built.
 */
final class VrrpGlobalsBlock {
  /** Read into the model, not acted on yet: said so rather than silently ignored. */
  private static final Set<String> NOT_ACTED_ON =
      Set.of(
          "vrrp_garp_interval",
          "vrrp_gna_interval",
          "vrrp_lower_prio_no_advert",
          "vrrp_startup_delay");

  private final Values v;
  private final VrrpValues values;
  private final SyncDaemonParser syncDaemon;
  private VrrpGlobals globals = VrrpGlobals.defaults();

  /** The builder of the line being read; each line is built on the globals of the lines before. */
  private VrrpGlobals.@Nullable Builder g;

  VrrpGlobalsBlock(VrrpValues values, SyncDaemonParser syncDaemon) {
    this.v = values.v;
    this.values = values;
    this.syncDaemon = syncDaemon;
  }

  static final KeywordTable<VrrpGlobalsBlock> TABLE = table();

  /** The VRRP keywords of global_defs. */
  static final Set<String> KEYWORDS = TABLE.known();

  VrrpGlobals globals() {
    return globals;
  }

  void line(Node n) {
    if (NOT_ACTED_ON.contains(n.keyword())) {
      v.warn(n, "global_defs '" + n.keyword() + "' is read but Fairway does not act on it yet");
    }
    g = globals.toBuilder();
    if (!TABLE.dispatch(this, n)) {
      throw new IllegalArgumentException(n.keyword());
    }
    globals = g.build();
  }

  private VrrpGlobals.Builder g() {
    return Objects.requireNonNull(g, "line() sets the builder before a keyword is read");
  }

  private static KeywordTable<VrrpGlobalsBlock> table() {
    KeywordTable<VrrpGlobalsBlock> t = new KeywordTable<>();
    t.on("lvs_sync_daemon", (b, n) -> b.syncDaemon.add(n));
    t.on(
        "vrrp_version",
        (b, n) -> {
          Long x = b.v.args(n, 1, 1) ? b.v.number(n, 1, 2, 3, "version") : null;
          if (x != null) {
            b.g().version(x.intValue());
          }
        });
    garp(t);
    t.on(List.of("vrrp_garp_interval", "vrrp_gna_interval"), VrrpGlobalsBlock::interval);
    t.on(
        List.of("vrrp_lower_prio_no_advert", "vrrp_skip_check_adv_addr", "vrrp_strict"),
        VrrpGlobalsBlock::flag);
    t.on(List.of("vrrp_mcast_group4", "vrrp_mcast_group6"), VrrpGlobalsBlock::mcastGroup);
    t.on(
        "vrrp_startup_delay",
        (b, n) -> {
          Duration d = b.v.args(n, 1, 1) ? b.values.seconds(n, 0, 3600) : null;
          if (d != null) {
            b.g().startupDelay(Optional.of(d));
          }
        });
    return t;
  }

  private static void garp(KeywordTable<VrrpGlobalsBlock> t) {
    t.on(
        "vrrp_garp_master_delay",
        (b, n) -> {
          Duration d = b.v.args(n, 1, 1) ? b.values.seconds(n, 0, 255) : null;
          if (d != null) {
            b.g().garpMasterDelay(d);
          }
        });
    t.on(
        "vrrp_garp_master_repeat",
        (b, n) -> {
          Long x = b.v.args(n, 1, 1) ? b.v.number(n, 1, 1, 255, "repeat") : null;
          if (x != null) {
            b.g().garpMasterRepeat(x.intValue());
          }
        });
    t.on(
        "vrrp_garp_master_refresh",
        (b, n) -> {
          Duration d = b.v.args(n, 1, 1) ? b.v.timer(n, 1, true) : null;
          if (d != null) {
            b.g().garpMasterRefresh(d.isZero() ? Optional.empty() : Optional.of(d));
          }
        });
    t.on(
        "vrrp_garp_master_refresh_repeat",
        (b, n) -> {
          Long x = b.v.args(n, 1, 1) ? b.v.number(n, 1, 1, 255, "repeat") : null;
          if (x != null) {
            b.g().garpMasterRefreshRepeat(x.intValue());
          }
        });
  }

  private static void interval(VrrpGlobalsBlock b, Node n) {
    Duration d = b.v.args(n, 1, 1) ? b.values.seconds(n, 0, 1) : null;
    if (d != null && d.isZero()) {
      b.v.error(n, n.keyword() + ": must be more than 0 seconds (keepalived refuses 0)");
    } else if (d != null && n.keyword().equals("vrrp_garp_interval")) {
      b.g().garpInterval(d);
    } else if (d != null) {
      b.g().gnaInterval(d);
    }
  }

  private static void flag(VrrpGlobalsBlock b, Node n) {
    Boolean on = b.v.args(n, 0, 1) ? b.v.bool(n, 1) : null;
    if (on != null) {
      switch (n.keyword()) {
        case "vrrp_lower_prio_no_advert" -> b.g().lowerPrioNoAdvert(on);
        case "vrrp_skip_check_adv_addr" -> b.g().skipCheckAdvAddr(on);
        default -> b.g().strict(on);
      }
    }
  }

  private static void mcastGroup(VrrpGlobalsBlock b, Node n) {
    InetAddress a = b.v.args(n, 1, 1) ? b.v.address(n, 1, "multicast group") : null;
    boolean four = n.keyword().endsWith("4");
    if (a != null && (!a.isMulticastAddress() || (a instanceof Inet4Address) != four)) {
      b.v.error(
          n,
          n.keyword()
              + ": "
              + n.arg(1)
              + " is not an IPv"
              + (four ? "4" : "6")
              + " multicast address");
    } else if (a != null && four) {
      b.g().mcastGroup4(a);
    } else if (a != null) {
      b.g().mcastGroup6(a);
    }
  }
}
