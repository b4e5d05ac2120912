package io.fairway.config;

import io.fairway.config.model.base.Addresses;
import io.fairway.config.model.base.Script;
import io.fairway.config.model.vrrp.Track;
import io.fairway.config.model.vrrp.VirtualAddress;
import io.fairway.config.model.vrrp.VrrpGlobals;
import io.fairway.config.model.vrrp.VrrpInstance;
import io.fairway.config.model.vrrp.VrrpState;
import io.fairway.table.AddressFamily;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A vrrp_instance block as written: the keyword table, the state its handlers fill, and the checks
 * of that state alone; {@link VrrpParser} checks what needs the rest of the file and builds the
 * instance.
 */
final class VrrpInstanceBlock {
  final VrrpParser p;
  final Values v;
  final Node n;
  final String name;
  @Nullable VrrpState state;
  @Nullable String iface;
  @Nullable Integer vrid;
  @Nullable Integer priority;
  @Nullable Node priorityNode;
  Duration advert = Duration.ofSeconds(1);
  @Nullable Node advertNode;
  @Nullable Integer version;
  final List<VirtualAddress> vips = new ArrayList<>();
  final List<VirtualAddress> excluded = new ArrayList<>();
  boolean preempt = true;
  @Nullable Node nopreemptNode;
  Duration preemptDelay = Duration.ZERO;
  @Nullable Node preemptDelayNode;
  Optional<InetAddress> unicastSrc = Optional.empty();
  final List<InetAddress> peers = new ArrayList<>();
  Optional<String> authPass = Optional.empty();
  @Nullable Node authNode;
  Duration garpDelay;
  int garpRepeat;
  Optional<Duration> garpRefresh;
  final Map<String, Script> notify = new HashMap<>();
  final List<Track> trackScripts = new ArrayList<>();
  final List<Track> trackIfs = new ArrayList<>();
  final List<Track> trackFiles = new ArrayList<>();
  boolean accept;
  Optional<String> syncIf = Optional.empty();

  /** Cleared by each check the instance fails; all are reported before it is dropped. */
  boolean ok = true;

  VrrpInstanceBlock(VrrpParser p, VrrpGlobals g, Node n) {
    this.p = p;
    this.v = p.v;
    this.n = n;
    this.name = n.arg(1);
    garpDelay = g.garpMasterDelay();
    garpRepeat = g.garpMasterRepeat();
    garpRefresh = g.garpMasterRefresh();
    accept = !g.strict();
  }

  void error(Node at, String message) {
    v.error(at, message);
    ok = false;
  }

  /** keepalived instance keywords Fairway refuses, with why. */
  private static final Map<String, String> REFUSED =
      Map.ofEntries(
          Map.entry(
              "use_vmac",
              "Fairway does not create macvlan interfaces; the virtual addresses "
                  + "go on the instance's interface itself (drop use_vmac)"),
          Map.entry("use_vmac_addr", "Fairway does not create macvlan interfaces"),
          Map.entry("vmac_xmit_base", "Fairway does not create macvlan interfaces"),
          Map.entry("use_ipvlan", "Fairway does not create ipvlan interfaces"),
          Map.entry(
              "auth_hmac",
              "HMAC authentication is a keepalived extension Fairway does not " + "implement"),
          Map.entry("virtual_routes", "Fairway does not manage routes (use static routes)"),
          Map.entry("virtual_rules", "Fairway does not manage policy routing rules"),
          Map.entry("track_process", "process tracking is not implemented; use a vrrp_script"),
          Map.entry("track_bfd", "BFD is not implemented"),
          Map.entry("vrf", "VRF is not implemented"),
          Map.entry("native_ipv6", "not implemented"),
          Map.entry("mcast_dst_ip", "not implemented: adverts go to 224.0.0.18 / ff02::12"),
          Map.entry("unicast_ttl", "not implemented: adverts are sent and checked with TTL 255"),
          Map.entry("check_unicast_src", "not implemented"),
          Map.entry("old_unicast_checksum", "not implemented"),
          Map.entry("v3_checksum_as_v2", "not implemented"),
          Map.entry("strict_mode", "not implemented per instance; use global_defs vrrp_strict"),
          Map.entry(
              "skip_check_adv_addr",
              "not implemented per instance; use global_defs " + "vrrp_skip_check_adv_addr"),
          Map.entry("promote_secondaries", "not implemented"),
          Map.entry("no_virtual_ipaddress", "not implemented"),
          Map.entry("garp_master_refresh_repeat", "not implemented per instance"),
          Map.entry("garp_lower_prio_delay", "not implemented"),
          Map.entry("garp_lower_prio_repeat", "not implemented"),
          Map.entry("down_timer_adverts", "not implemented: the master down interval is RFC's 3"),
          Map.entry("notify_deleted", "not implemented"),
          Map.entry("notify_master_rx_lower_pri", "not implemented"),
          Map.entry("notify_priority_changes", "not implemented"),
          Map.entry("lower_prio_no_advert", "not implemented per instance"),
          Map.entry("higher_prio_send_advert", "not implemented"),
          Map.entry("owner_ignore_adverts", "not implemented"),
          Map.entry("unicast_fault_no_peer", "not implemented"),
          Map.entry("track_src_ip", "not implemented"),
          Map.entry("linkbeat_use_polling", "not implemented"),
          Map.entry("debug", "not implemented"),
          Map.entry("kernel_rx_buf_size", "not implemented"),
          Map.entry("timer_expired_backup", "not implemented"),
          Map.entry("garp_extra_if", "not implemented"));

  static final KeywordTable<VrrpInstanceBlock> TABLE = table();

  private static KeywordTable<VrrpInstanceBlock> table() {
    KeywordTable<VrrpInstanceBlock> t = new KeywordTable<>();
    t.on("state", VrrpInstanceBlock::state);
    t.on("interface", VrrpInstanceBlock::iface);
    numbers(t);
    t.on("advert_int", VrrpInstanceBlock::advertInt);
    t.on(
        List.of("virtual_ipaddress", "virtual_ipaddress_excluded"),
        VrrpInstanceBlock::virtualAddresses);
    preemption(t);
    t.on(
        List.of("unicast_src_ip", "mcast_src_ip"),
        (d, c) -> {
          InetAddress a = d.v.args(c, 1, 1) ? d.v.address(c, 1, "address") : null;
          if (a != null) {
            d.unicastSrc = Optional.of(a);
          }
        });
    t.on("unicast_peer", VrrpInstanceBlock::unicastPeers);
    t.on(
        "authentication",
        (d, c) -> {
          if (d.v.block(c)) {
            d.authNode = c;
            d.authPass = d.p.values.authentication(c);
          }
        });
    garp(t);
    t.on(
        List.of("notify_master", "notify_backup", "notify_fault", "notify_stop", "notify"),
        (d, c) -> d.p.values.notifyScript(c, d.notify));
    t.on("track_script", (d, c) -> d.p.values.tracks(c, d.trackScripts, "track_script"));
    t.on("track_interface", (d, c) -> d.p.values.tracks(c, d.trackIfs, "track_interface"));
    t.on("track_file", (d, c) -> d.p.values.tracks(c, d.trackFiles, "track_file"));
    accept(t);
    t.on("lvs_sync_daemon_interface", VrrpInstanceBlock::syncDaemonInterface);
    t.on(
        List.of("smtp_alert", "dont_track_primary"),
        (d, c) -> d.v.warn(c, "'" + c.keyword() + "' is not used by Fairway; ignored"));
    t.refuse(REFUSED, d -> d.v);
    return t;
  }

  private static void numbers(KeywordTable<VrrpInstanceBlock> t) {
    t.on(
        "virtual_router_id",
        (d, c) -> {
          Long x = d.v.args(c, 1, 1) ? d.v.number(c, 1, 1, 255, "virtual_router_id") : null;
          if (x != null) {
            d.vrid = x.intValue();
          }
        });
    t.on(
        "priority",
        (d, c) -> {
          Long x = d.v.args(c, 1, 1) ? d.v.number(c, 1, 1, 255, "priority") : null;
          if (x != null) {
            d.priority = x.intValue();
            d.priorityNode = c;
          }
        });
    t.on(
        "version",
        (d, c) -> {
          Long x = d.v.args(c, 1, 1) ? d.v.number(c, 1, 2, 3, "version") : null;
          if (x != null) {
            d.version = x.intValue();
          }
        });
  }

  private static void state(VrrpInstanceBlock d, Node c) {
    if (d.v.args(c, 1, 1)) {
      switch (c.arg(1)) {
        case "MASTER" -> d.state = VrrpState.MASTER;
        case "BACKUP" -> d.state = VrrpState.BACKUP;
        default -> d.v.error(c, "state must be MASTER or BACKUP, not '" + c.arg(1) + "'");
      }
    }
  }

  private static void iface(VrrpInstanceBlock d, Node c) {
    if (d.v.args(c, 1, 1)) {
      if (c.arg(1).length() >= 16) {
        d.v.error(c, "interface name '" + c.arg(1) + "' is longer than 15 characters");
      } else {
        d.iface = c.arg(1);
      }
    }
  }

  private static void advertInt(VrrpInstanceBlock d, Node c) {
    Duration t = d.v.args(c, 1, 1) ? d.v.timer(c, 1, false) : null;
    if (t != null && t.compareTo(Duration.ofSeconds(255)) > 0) {
      d.v.error(c, "advert_int " + c.arg(1) + " is out of range 0.01..255 seconds");
    } else if (t != null && t.compareTo(Duration.ofMillis(10)) < 0) {
      d.v.error(c, "advert_int " + c.arg(1) + " is below 0.01 seconds");
    } else if (t != null) {
      d.advert = t;
      d.advertNode = c;
    }
  }

  private static void virtualAddresses(VrrpInstanceBlock d, Node c) {
    if (d.v.block(c)) {
      for (Node a : c.block()) {
        VirtualAddress va = d.p.values.virtualAddress(a);
        if (va != null) {
          (c.keyword().equals("virtual_ipaddress") ? d.vips : d.excluded).add(va);
        }
      }
    }
  }

  private static void preemption(KeywordTable<VrrpInstanceBlock> t) {
    t.on(
        "nopreempt",
        (d, c) -> {
          if (d.v.args(c, 0, 0)) {
            d.preempt = false;
            d.nopreemptNode = c;
          }
        });
    t.on(
        "preempt",
        (d, c) -> {
          if (d.v.args(c, 0, 0)) {
            d.preempt = true;
          }
        });
    t.on(
        "preempt_delay",
        (d, c) -> {
          Duration t2 = d.v.args(c, 1, 1) ? d.v.timer(c, 1, true) : null;
          if (t2 != null && t2.compareTo(Duration.ofSeconds(1000)) > 0) {
            d.v.error(c, "preempt_delay " + c.arg(1) + " is out of range 0..1000 seconds");
          } else if (t2 != null) {
            d.preemptDelay = t2;
            d.preemptDelayNode = c;
          }
        });
  }

  private static void unicastPeers(VrrpInstanceBlock d, Node c) {
    if (!d.v.block(c)) {
      return;
    }
    for (Node p : c.block()) {
      if (p.hasBlock() || p.argc() > 0) {
        d.v.error(
            p,
            "unicast_peer: one address per line (options such as min_ttl are "
                + "not implemented)");
        continue;
      }
      InetAddress a = Values.address(p.keyword());
      if (a == null) {
        d.v.error(p, "unicast_peer: '" + p.keyword() + "' is not an IPv4 or IPv6 address");
      } else if (d.peers.contains(a)) {
        d.v.error(p, "unicast_peer: " + p.keyword() + " is listed twice");
      } else {
        d.peers.add(a);
      }
    }
  }

  private static void garp(KeywordTable<VrrpInstanceBlock> t) {
    t.on(
        "garp_master_delay",
        (d, c) -> {
          Duration s = d.v.args(c, 1, 1) ? d.p.values.seconds(c, 0, 255) : null;
          if (s != null) {
            d.garpDelay = s;
          }
        });
    t.on(
        "garp_master_repeat",
        (d, c) -> {
          Long x = d.v.args(c, 1, 1) ? d.v.number(c, 1, 1, 255, "repeat") : null;
          if (x != null) {
            d.garpRepeat = x.intValue();
          }
        });
    t.on(
        "garp_master_refresh",
        (d, c) -> {
          Duration r = d.v.args(c, 1, 1) ? d.v.timer(c, 1, true) : null;
          if (r != null) {
            d.garpRefresh = r.isZero() ? Optional.empty() : Optional.of(r);
          }
        });
  }

  private static void accept(KeywordTable<VrrpInstanceBlock> t) {
    t.on(
        "accept",
        (d, c) -> {
          if (d.v.args(c, 0, 0)) {
            d.accept = true;
          }
        });
    t.on(
        "no_accept",
        (d, c) -> {
          if (d.v.args(c, 0, 0)) {
            d.accept = false;
            d.v.warn(
                c,
                "no_accept: Fairway installs no firewall rules; packets to the virtual "
                    + "addresses are accepted as with 'accept'");
          }
        });
  }

  private static void syncDaemonInterface(VrrpInstanceBlock d, Node c) {
    Node n = d.n;
    if (d.v.args(c, 1, 1) && d.p.values.syncInterface(c, 1)) {
      d.syncIf = Optional.of(c.arg(1));
      if (n.argc() == 1) {
        d.p.syncDaemon.interfaceNodes.putIfAbsent(n.arg(1), c);
      }
      d.v.warn(
          c,
          "lvs_sync_daemon_interface in a vrrp_instance is deprecated (keepalived "
              + "says so too); use global_defs lvs_sync_daemon "
              + c.arg(1)
              + " "
              + n.arg(1));
    }
  }

  /** The instance's family, its virtual addresses', which its peers and source must share. */
  static AddressFamily family(VrrpInstanceBlock d) {
    Node n = d.n;
    // The family is the virtual addresses'; all of them must agree (keepalived refuses a mix).
    AddressFamily family = null;
    for (VirtualAddress a : d.vips) {
      AddressFamily f = AddressFamily.of(a.address());
      if (family == null) {
        family = f;
      } else if (f != family) {
        d.error(
            VrrpValues.lineOf(n, a.location()),
            "virtual_ipaddress "
                + Addresses.format(a.address())
                + ": IPv4 and IPv6 addresses cannot be mixed in one vrrp_instance (use "
                + "virtual_ipaddress_excluded, or a second instance)");
      }
    }
    if (family == null && d.unicastSrc.isPresent()) {
      family = AddressFamily.of(d.unicastSrc.get());
    }
    if (family == null) {
      family = AddressFamily.INET;
    }
    for (InetAddress p : d.peers) {
      if (AddressFamily.of(p) != family) {
        d.error(
            n,
            "unicast_peer "
                + Addresses.format(p)
                + " is not of the instance's family "
                + Addresses.keyword(family));
      }
    }
    if (d.unicastSrc.isPresent() && AddressFamily.of(d.unicastSrc.get()) != family) {
      d.error(
          n,
          "unicast_src_ip "
              + Addresses.format(d.unicastSrc.get())
              + " is not of the instance's family "
              + Addresses.keyword(family));
    }
    return family;
  }

  /** State and priority, each derived from the other when missing, and what they clear. */
  static int roles(VrrpInstanceBlock d) {
    // keepalived derives whichever of state and priority is missing from the other.
    int prio =
        d.priority != null
            ? d.priority
            : d.state == VrrpState.MASTER ? VrrpInstance.OWNER_PRIORITY : 100;
    if (d.state == null) {
      d.state = prio == VrrpInstance.OWNER_PRIORITY ? VrrpState.MASTER : VrrpState.BACKUP;
    }
    if (prio == VrrpInstance.OWNER_PRIORITY && d.state == VrrpState.BACKUP) {
      d.error(
          Objects.requireNonNull(d.priorityNode, "priority 255 is only ever written"),
          "priority 255 is the address owner, which is always MASTER; "
              + "use state MASTER or a priority of 254 or less");
    }
    if (!d.preempt && d.state == VrrpState.MASTER) {
      d.v.warn(
          Objects.requireNonNull(d.nopreemptNode, "preempt is only ever cleared by nopreempt"),
          "nopreempt does not work with state MASTER; keepalived clears it "
              + "(use state BACKUP)");
      d.preempt = true;
    }
    if (!d.preemptDelay.isZero() && d.state == VrrpState.MASTER) {
      d.v.warn(
          Objects.requireNonNull(d.preemptDelayNode, "a preempt_delay was written"),
          "preempt_delay does not work with state MASTER; keepalived "
              + "clears it (use state BACKUP)");
      d.preemptDelay = Duration.ZERO;
    }
    if (!d.preemptDelay.isZero() && !d.preempt) {
      d.v.warn(
          Objects.requireNonNull(d.preemptDelayNode, "a preempt_delay was written"),
          "preempt_delay does nothing with nopreempt; keepalived clears it");
      d.preemptDelay = Duration.ZERO;
    }
    return prio;
  }
}
