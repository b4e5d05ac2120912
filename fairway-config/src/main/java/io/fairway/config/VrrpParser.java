package io.fairway.config;

import io.fairway.config.model.vrrp.SyncGroup;
import io.fairway.config.model.vrrp.Track;
import io.fairway.config.model.vrrp.VrrpConfig;
import io.fairway.config.model.vrrp.VrrpInstance;
import io.fairway.config.model.vrrp.VrrpScript;
import io.fairway.table.AddressFamily;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * {@code vrrp_instance}, {@code vrrp_sync_group}, {@code vrrp_script} and the VRRP keywords of
 * {@code global_defs}, read as keepalived 2.2's vrrp_parser.c and completed as its
 * vrrp_complete_instance() does. Where keepalived silently resets a bad value, Fairway reports an
 * error: a VRRP mistake moves addresses between machines.
 *
 * <p>This class is the wiring: it reads the blocks in the order their references need (globals and
 * scripts as they come, instances once scripts are known, sync groups and the sync daemon once
 * instances are), and checks what spans the file. Each block's keywords are in its own table
 * ({@link VrrpGlobalsBlock}, {@link VrrpScriptBlock}, {@link VrrpInstanceBlock}, {@link
 * SyncGroupBlock}).
 */
final class VrrpParser {
  /** The VRRP keywords of global_defs. */
  static final Set<String> GLOBAL = VrrpGlobalsBlock.KEYWORDS;

  final Values v;
  final VrrpValues values;
  final SyncDaemonParser syncDaemon;
  private final VrrpGlobalsBlock globals;
  private final List<Node> instanceNodes = new ArrayList<>();
  private final List<Node> groupNodes = new ArrayList<>();
  private final Map<String, VrrpScript> scripts = new LinkedHashMap<>();

  VrrpParser(Values v) {
    this.v = v;
    this.values = new VrrpValues(v);
    this.syncDaemon = new SyncDaemonParser(values);
    this.globals = new VrrpGlobalsBlock(values, syncDaemon);
  }

  /** True for the top-level blocks this parser reads. */
  static boolean isTopLevel(String keyword) {
    return keyword.equals("vrrp_instance")
        || keyword.equals("vrrp_sync_group")
        || keyword.equals("vrrp_script");
  }

  /** Collects a top-level block; instances are resolved in {@link #build} (scripts first). */
  void top(Node n) {
    switch (n.keyword()) {
      case "vrrp_instance" -> instanceNodes.add(n);
      case "vrrp_sync_group" -> groupNodes.add(n);
      case "vrrp_script" -> VrrpScriptBlock.read(v, n, scripts);
      default -> throw new IllegalArgumentException(n.keyword());
    }
  }

  /** One VRRP keyword of global_defs. */
  void global(Node n) {
    globals.line(n);
  }

  /** The keywords of a vrrp_script block, for suggestions. */
  static Set<String> scriptKeywords() {
    return VrrpScriptBlock.keywords();
  }

  // --- vrrp_instance ---------------------------------------------------------------------------

  private @Nullable VrrpInstance instance(Node n) {
    if (n.argc() != 1) {
      v.error(n, "vrrp_instance needs exactly one name");
      return null;
    }
    if (!v.block(n)) {
      return null;
    }
    VrrpInstanceBlock d = new VrrpInstanceBlock(this, globals.globals(), n);
    for (Node c : n.block()) {
      if (!VrrpInstanceBlock.TABLE.dispatch(d, c)) {
        v.unknown(c, VrrpInstanceBlock.TABLE.known(), "vrrp_instance");
      }
    }
    return build(d);
  }

  private @Nullable VrrpInstance build(VrrpInstanceBlock d) {
    Node n = d.n;
    if (d.iface == null) {
      d.error(n, "vrrp_instance " + d.name + " has no 'interface'");
    }
    if (d.vrid == null) {
      d.error(n, "vrrp_instance " + d.name + " has no 'virtual_router_id'");
    }
    AddressFamily family = VrrpInstanceBlock.family(d);
    int ver = version(d, family);
    int prio = VrrpInstanceBlock.roles(d);
    for (Track t : d.trackScripts) {
      if (!scripts.containsKey(t.name())) {
        d.error(
            n,
            "vrrp_instance "
                + d.name
                + ": track_script '"
                + t.name()
                + "' is not a "
                + "vrrp_script"
                + Keywords.suggest(t.name(), scripts.keySet())
                    .map(s -> " (did you mean '" + s + "'?)")
                    .orElse(""));
      }
    }
    if (!d.ok) {
      return null;
    }
    return new VrrpInstance(
        Values.loc(n),
        d.name,
        Objects.requireNonNull(d.state, "roles() sets the state"),
        Objects.requireNonNull(d.iface, "d.ok: a missing interface was reported"),
        Objects.requireNonNull(d.vrid, "d.ok: a missing virtual_router_id was reported"),
        prio,
        d.advert,
        ver,
        family,
        d.vips,
        d.excluded,
        d.preempt,
        d.preemptDelay,
        d.unicastSrc,
        d.peers,
        d.authPass,
        d.garpDelay,
        d.garpRepeat,
        d.garpRefresh,
        VrrpValues.notify(d.notify),
        d.trackScripts,
        d.trackIfs,
        d.trackFiles,
        d.accept,
        d.syncIf);
  }

  /** The VRRP version, and what it and vrrp_strict refuse. */
  private int version(VrrpInstanceBlock d, AddressFamily family) {
    Node n = d.n;
    int ver =
        d.version != null
            ? d.version
            : family == AddressFamily.INET6 ? 3 : globals.globals().version();
    if (family == AddressFamily.INET6 && ver == 2) {
      d.error(n, "vrrp_instance " + d.name + ": VRRPv2 carries IPv4 only; IPv6 needs version 3");
    }
    if (d.authPass.isPresent() && ver == 3) {
      d.error(
          Objects.requireNonNull(d.authNode, "authentication was read from a node"),
          "authentication is VRRPv2 only (RFC 5798 removed it); drop it or use " + "version 2");
    }
    if (globals.globals().strict() && d.authPass.isPresent()) {
      d.error(
          Objects.requireNonNull(d.authNode, "authentication was read from a node"),
          "vrrp_strict forbids authentication");
    }
    if (globals.globals().strict() && !d.peers.isEmpty()) {
      d.error(n, "vrrp_strict forbids unicast_peer");
    }
    if (ver == 2 && d.advert.toNanos() % 1_000_000_000L != 0) {
      Node advertNode = Objects.requireNonNull(d.advertNode, "the default advert_int is whole");
      d.error(
          advertNode, "advert_int " + advertNode.arg(1) + ": VRRPv2 advertises whole " + "seconds");
    } else if (ver == 3 && d.advert.toNanos() % 10_000_000L != 0) {
      Node advertNode = Objects.requireNonNull(d.advertNode, "the default advert_int is whole");
      d.error(
          advertNode,
          "advert_int " + advertNode.arg(1) + ": VRRPv3 advertises in units of " + "10 ms");
    }
    if (d.vips.size() > 255) {
      d.error(
          n,
          "vrrp_instance "
              + d.name
              + " has "
              + d.vips.size()
              + " virtual_ipaddress; an advert"
              + " carries at most 255 (use virtual_ipaddress_excluded)");
    }
    return ver;
  }

  /** The instances kept, by name: each built, then refused when its name or router id is taken. */
  private Map<String, VrrpInstance> instances() {
    Map<String, VrrpInstance> instances = new LinkedHashMap<>();
    Map<String, VrrpInstance> byRouter = new HashMap<>();
    for (Node n : instanceNodes) {
      VrrpInstance i = instance(n);
      if (i == null) {
        continue;
      }
      if (instances.containsKey(i.name())) {
        v.error(
            n,
            "duplicate vrrp_instance '"
                + i.name()
                + "' (first at "
                + instances.get(i.name()).location()
                + ")");
        continue;
      }
      // One router id per interface and family: two instances would answer each other's adverts.
      String key = i.interfaceName() + "/" + i.family() + "/" + i.virtualRouterId();
      VrrpInstance same = byRouter.get(key);
      if (same != null && !i.unicast() && !same.unicast()) {
        v.error(
            n,
            "vrrp_instance "
                + i.name()
                + ": virtual_router_id "
                + i.virtualRouterId()
                + " is already used on interface "
                + i.interfaceName()
                + " by "
                + same.name()
                + " ("
                + same.location()
                + ")");
        continue;
      }
      byRouter.put(key, i);
      instances.put(i.name(), i);
    }
    return instances;
  }

  // --- the whole ---------------------------------------------------------------------------

  VrrpConfig build() {
    Map<String, VrrpInstance> instances = instances();
    Map<String, String> memberOf = new HashMap<>();
    List<SyncGroup> groups = new ArrayList<>();
    Set<String> groupNames = new java.util.HashSet<>();
    for (Node n : groupNodes) {
      SyncGroup g = SyncGroupBlock.read(values, n, instances, memberOf);
      if (g == null) {
        continue;
      }
      if (!groupNames.add(g.name())) {
        v.error(n, "duplicate vrrp_sync_group '" + g.name() + "'");
        continue;
      }
      groups.add(g);
    }
    return new VrrpConfig(
        globals.globals(),
        List.copyOf(instances.values()),
        groups,
        List.copyOf(scripts.values()),
        syncDaemon.build(instances, instanceNodes));
  }
}
