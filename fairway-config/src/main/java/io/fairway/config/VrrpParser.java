package io.fairway.config;

import io.fairway.config.model.AddressFamily;
import io.fairway.config.model.Location;
import io.fairway.config.model.Script;
import io.fairway.config.model.vrrp.LvsSyncDaemon;
import io.fairway.config.model.vrrp.Notify;
import io.fairway.config.model.vrrp.SyncGroup;
import io.fairway.config.model.vrrp.Track;
import io.fairway.config.model.vrrp.VirtualAddress;
import io.fairway.config.model.vrrp.VrrpConfig;
import io.fairway.config.model.vrrp.VrrpGlobals;
import io.fairway.config.model.vrrp.VrrpInstance;
import io.fairway.config.model.vrrp.VrrpScript;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;

/**
 * {@code vrrp_instance}, {@code vrrp_sync_group}, {@code vrrp_script} and the VRRP keywords of
 * {@code global_defs}, read as keepalived 2.2's vrrp_parser.c and completed as its
 * vrrp_complete_instance() does. Where keepalived silently resets a bad value, Fairway reports an
 * error: a VRRP mistake moves addresses between machines.
 */
final class VrrpParser {
  static final Set<String> GLOBAL =
      Set.of(
          "vrrp_version",
          "vrrp_garp_master_delay",
          "vrrp_garp_master_repeat",
          "vrrp_garp_master_refresh",
          "vrrp_garp_master_refresh_repeat",
          "vrrp_garp_interval",
          "vrrp_gna_interval",
          "vrrp_lower_prio_no_advert",
          "vrrp_skip_check_adv_addr",
          "vrrp_strict",
          "vrrp_mcast_group4",
          "vrrp_mcast_group6",
          "vrrp_startup_delay",
          "lvs_sync_daemon");

  /** keepalived instance keywords Fairway refuses, with why. */
  static final Map<String, String> REFUSED =
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

  private static final Set<String> GROUP =
      Set.of(
          "group",
          "notify_master",
          "notify_backup",
          "notify_fault",
          "notify_stop",
          "notify",
          "track_script",
          "smtp_alert");
  final Values v;
  private VrrpGlobals globals = VrrpGlobals.defaults();
  private final List<Node> instanceNodes = new ArrayList<>();
  private final List<Node> groupNodes = new ArrayList<>();
  private final Map<String, VrrpScript> scripts = new LinkedHashMap<>();

  /** {@code lvs_sync_daemon} lines of global_defs, resolved in {@link #build} (instances first). */
  private final List<Node> syncDaemonNodes = new ArrayList<>();

  /** {@code lvs_sync_daemon_interface} lines by instance name. */
  final Map<String, Node> syncInterfaceNodes = new LinkedHashMap<>();

  VrrpParser(Values v) {
    this.v = v;
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
      case "vrrp_script" -> script(n);
      default -> throw new IllegalArgumentException(n.keyword());
    }
  }

  // --- global_defs -----------------------------------------------------------------------------

  /** Read into the model, not acted on yet: said so rather than silently ignored. */
  private static final Set<String> NOT_ACTED_ON =
      Set.of(
          "vrrp_garp_interval",
          "vrrp_gna_interval",
          "vrrp_lower_prio_no_advert",
          "vrrp_startup_delay");

  void global(Node n) {
    if (NOT_ACTED_ON.contains(n.keyword())) {
      v.warn(n, "global_defs '" + n.keyword() + "' is read but Fairway does not act on it yet");
    }
    VrrpGlobals.Builder g = globals.toBuilder();
    switch (n.keyword()) {
      case "lvs_sync_daemon" -> syncDaemonNodes.add(n);
      case "vrrp_version" -> {
        Long x = v.args(n, 1, 1) ? v.number(n, 1, 2, 3, "version") : null;
        if (x != null) {
          g.version(x.intValue());
        }
      }
      case "vrrp_garp_master_delay" -> {
        Duration d = v.args(n, 1, 1) ? seconds(n, 0, 255) : null;
        if (d != null) {
          g.garpMasterDelay(d);
        }
      }
      case "vrrp_garp_master_repeat" -> {
        Long x = v.args(n, 1, 1) ? v.number(n, 1, 1, 255, "repeat") : null;
        if (x != null) {
          g.garpMasterRepeat(x.intValue());
        }
      }
      case "vrrp_garp_master_refresh" -> {
        Duration d = v.args(n, 1, 1) ? v.timer(n, 1, true) : null;
        if (d != null) {
          g.garpMasterRefresh(d.isZero() ? Optional.empty() : Optional.of(d));
        }
      }
      case "vrrp_garp_master_refresh_repeat" -> {
        Long x = v.args(n, 1, 1) ? v.number(n, 1, 1, 255, "repeat") : null;
        if (x != null) {
          g.garpMasterRefreshRepeat(x.intValue());
        }
      }
      case "vrrp_garp_interval", "vrrp_gna_interval" -> {
        Duration d = v.args(n, 1, 1) ? seconds(n, 0, 1) : null;
        if (d != null && d.isZero()) {
          v.error(n, n.keyword() + ": must be more than 0 seconds (keepalived refuses 0)");
        } else if (d != null && n.keyword().equals("vrrp_garp_interval")) {
          g.garpInterval(d);
        } else if (d != null) {
          g.gnaInterval(d);
        }
      }
      case "vrrp_lower_prio_no_advert", "vrrp_skip_check_adv_addr", "vrrp_strict" -> {
        Boolean b = v.args(n, 0, 1) ? v.bool(n, 1) : null;
        if (b != null) {
          switch (n.keyword()) {
            case "vrrp_lower_prio_no_advert" -> g.lowerPrioNoAdvert(b);
            case "vrrp_skip_check_adv_addr" -> g.skipCheckAdvAddr(b);
            default -> g.strict(b);
          }
        }
      }
      case "vrrp_mcast_group4", "vrrp_mcast_group6" -> {
        InetAddress a = v.args(n, 1, 1) ? v.address(n, 1, "multicast group") : null;
        boolean four = n.keyword().endsWith("4");
        if (a != null && (!a.isMulticastAddress() || (a instanceof Inet4Address) != four)) {
          v.error(
              n,
              n.keyword()
                  + ": "
                  + n.arg(1)
                  + " is not an IPv"
                  + (four ? "4" : "6")
                  + " multicast address");
        } else if (a != null && four) {
          g.mcastGroup4(a);
        } else if (a != null) {
          g.mcastGroup6(a);
        }
      }
      case "vrrp_startup_delay" -> {
        Duration d = v.args(n, 1, 1) ? seconds(n, 0, 3600) : null;
        if (d != null) {
          g.startupDelay(Optional.of(d));
        }
      }
      default -> throw new IllegalArgumentException(n.keyword());
    }
    globals = g.build();
  }

  Duration seconds(Node n, long min, long max) {
    Duration d = v.timer(n, 1, true);
    if (d == null) {
      return null;
    }
    if (d.compareTo(Duration.ofSeconds(min)) < 0 || d.compareTo(Duration.ofSeconds(max)) > 0) {
      v.error(
          n, n.keyword() + ": " + n.arg(1) + " is out of range " + min + ".." + max + " seconds");
      return null;
    }
    return d;
  }

  // --- vrrp_script -----------------------------------------------------------------------------

  /** A vrrp_script block as written: the state its keyword table's handlers fill. */
  private static final class ScriptDraft {
    final Values v;
    Script script;
    Duration interval = Duration.ofSeconds(1);
    Duration timeout;
    int weight;
    boolean reverse;
    int rise = 1;
    int fall = 1;
    boolean initFail;
    Optional<String> user = Optional.empty();
    Optional<String> group = Optional.empty();

    ScriptDraft(Values v) {
      this.v = v;
    }
  }

  private static final KeywordTable<ScriptDraft> SCRIPT = scriptTable();

  /** The keywords of a vrrp_script block, for suggestions. */
  static Set<String> scriptKeywords() {
    return SCRIPT.known();
  }

  private static KeywordTable<ScriptDraft> scriptTable() {
    KeywordTable<ScriptDraft> t = new KeywordTable<>();
    t.on("script", VrrpParser::scriptLine);
    t.on(
        List.of("interval", "timeout"),
        (s, c) -> {
          Duration d = s.v.args(c, 1, 1) ? s.v.timer(c, 1, false) : null;
          if (d != null && c.keyword().equals("interval")) {
            s.interval = d;
          } else if (d != null) {
            s.timeout = d;
          }
        });
    t.on("weight", VrrpParser::scriptWeight);
    t.on(
        List.of("rise", "fall"),
        (s, c) -> {
          Long x = s.v.args(c, 1, 1) ? s.v.number(c, 1, 1, Values.INT32_MAX, c.keyword()) : null;
          if (x != null && c.keyword().equals("rise")) {
            s.rise = x.intValue();
          } else if (x != null) {
            s.fall = x.intValue();
          }
        });
    t.on(
        "user",
        (s, c) -> {
          if (s.v.args(c, 1, 2)) {
            s.user = Optional.of(c.arg(1));
            s.group = c.argc() == 2 ? Optional.of(c.arg(2)) : Optional.empty();
          }
        });
    t.on(
        "init_fail",
        (s, c) -> {
          if (s.v.args(c, 0, 0)) {
            s.initFail = true;
          }
        });
    return t;
  }

  private static void scriptLine(ScriptDraft s, Node c) {
    List<String> words = Tokenizer.quotedWords(c.line.text());
    List<String> argv =
        words.size() == 2 ? Tokenizer.argv(words.get(1)) : words.subList(1, words.size());
    if (c.hasBlock() || argv.isEmpty()) {
      s.v.error(c, "script needs a command");
    } else {
      s.script =
          new Script(
              String.join(" ", words.subList(1, words.size())),
              argv,
              Optional.empty(),
              Optional.empty());
    }
  }

  private static void scriptWeight(ScriptDraft s, Node c) {
    if (s.v.args(c, 1, 2)) {
      Long w = s.v.signed(c, 1, -253, 253, "weight");
      if (w != null) {
        s.weight = w.intValue();
      }
      if (c.argc() == 2) {
        if (c.arg(2).equals("reverse")) {
          s.reverse = true;
        } else {
          s.v.error(c, "weight: expected 'reverse', got '" + c.arg(2) + "'");
        }
      }
    }
  }

  private void script(Node n) {
    if (n.argc() != 1) {
      v.error(n, "vrrp_script needs exactly one name");
      return;
    }
    if (!v.block(n)) {
      return;
    }
    String name = n.arg(1);
    ScriptDraft s = new ScriptDraft(v);
    for (Node c : n.children) {
      if (!SCRIPT.dispatch(s, c)) {
        v.unknown(c, SCRIPT.known(), "vrrp_script");
      }
    }
    if (s.script == null) {
      v.error(n, "vrrp_script " + name + " has no 'script'");
      return;
    }
    if (scripts.containsKey(name)) {
      v.error(
          n,
          "duplicate vrrp_script '" + name + "' (first at " + scripts.get(name).location() + ")");
      return;
    }
    Script script = new Script(s.script.command(), s.script.argv(), s.user, s.group);
    scripts.put(
        name,
        new VrrpScript(
            Values.loc(n),
            name,
            script,
            s.interval,
            s.timeout == null ? s.interval : s.timeout,
            s.weight,
            s.reverse,
            s.rise,
            s.fall,
            s.initFail));
  }

  // --- vrrp_instance ---------------------------------------------------------------------------

  private VrrpInstance instance(Node n) {
    if (n.argc() != 1) {
      v.error(n, "vrrp_instance needs exactly one name");
      return null;
    }
    if (!v.block(n)) {
      return null;
    }
    VrrpInstanceBlock d = new VrrpInstanceBlock(this, globals, n);
    for (Node c : n.children) {
      if (!VrrpInstanceBlock.TABLE.dispatch(d, c)) {
        v.unknown(c, VrrpInstanceBlock.TABLE.known(), "vrrp_instance");
      }
    }
    return build(d);
  }

  private VrrpInstance build(VrrpInstanceBlock d) {
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
    Notify nf =
        new Notify(
            Optional.ofNullable(d.notify.get("notify_master")),
            Optional.ofNullable(d.notify.get("notify_backup")),
            Optional.ofNullable(d.notify.get("notify_fault")),
            Optional.ofNullable(d.notify.get("notify_stop")),
            Optional.ofNullable(d.notify.get("notify")));
    return new VrrpInstance(
        Values.loc(n),
        d.name,
        d.state,
        d.iface,
        d.vrid,
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
        nf,
        d.trackScripts,
        d.trackIfs,
        d.trackFiles,
        d.accept,
        d.syncIf);
  }

  /** The VRRP version, and what it and vrrp_strict refuse. */
  private int version(VrrpInstanceBlock d, AddressFamily family) {
    Node n = d.n;
    int ver = d.version != null ? d.version : family == AddressFamily.INET6 ? 3 : globals.version();
    if (family == AddressFamily.INET6 && ver == 2) {
      d.error(n, "vrrp_instance " + d.name + ": VRRPv2 carries IPv4 only; IPv6 needs version 3");
    }
    if (d.authPass.isPresent() && ver == 3) {
      d.error(
          d.authNode,
          "authentication is VRRPv2 only (RFC 5798 removed it); drop it or use " + "version 2");
    }
    if (globals.strict() && d.authPass.isPresent()) {
      d.error(d.authNode, "vrrp_strict forbids authentication");
    }
    if (globals.strict() && !d.peers.isEmpty()) {
      d.error(n, "vrrp_strict forbids unicast_peer");
    }
    Node advertNode = d.advertNode;
    if (ver == 2 && d.advert.toNanos() % 1_000_000_000L != 0) {
      d.error(
          advertNode, "advert_int " + advertNode.arg(1) + ": VRRPv2 advertises whole " + "seconds");
    } else if (ver == 3 && d.advert.toNanos() % 10_000_000L != 0) {
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

  static Node lineOf(Node parent, Location at) {
    for (Node c : parent.children) {
      if (c.children != null) {
        for (Node a : c.children) {
          if (a.line.line() == at.line() && a.line.file().equals(at.file())) {
            return a;
          }
        }
      }
    }
    return parent;
  }

  Optional<String> authentication(Node c) {
    String type = null;
    String pass = null;
    for (Node a : c.children) {
      switch (a.keyword()) {
        case "auth_type" -> {
          if (v.args(a, 1, 1)) {
            if (a.arg(1).equals("PASS")) {
              type = "PASS";
            } else if (a.arg(1).equals("AH")) {
              v.error(
                  a,
                  "auth_type AH is not supported: RFC 3768 removed IPsec AH from VRRP "
                      + "and Fairway does not implement it; use auth_type PASS or no authentication");
            } else {
              v.error(a, "auth_type must be PASS, not '" + a.arg(1) + "'");
            }
          }
        }
        case "auth_pass" -> {
          if (v.args(a, 1, 1)) {
            pass = a.arg(1);
            if (pass.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > 8) {
              v.warn(
                  a,
                  "auth_pass is longer than 8 bytes; keepalived (and Fairway) use the "
                      + "first 8");
              pass =
                  new String(
                      java.util.Arrays.copyOf(
                          pass.getBytes(java.nio.charset.StandardCharsets.UTF_8), 8),
                      java.nio.charset.StandardCharsets.UTF_8);
            }
          }
        }
        default -> v.unknown(a, Set.of("auth_type", "auth_pass"), "authentication");
      }
    }
    if ("PASS".equals(type) && pass == null) {
      v.error(c, "auth_type PASS needs an auth_pass");
    }
    return "PASS".equals(type) && pass != null ? Optional.of(pass) : Optional.empty();
  }

  VirtualAddress virtualAddress(Node a) {
    if (a.hasBlock()) {
      v.error(a, "a virtual address does not take a { } block");
      return null;
    }
    String word = a.keyword();
    int slash = word.indexOf('/');
    InetAddress addr = Values.address(slash < 0 ? word : word.substring(0, slash));
    if (addr == null) {
      v.error(
          a,
          "'" + (slash < 0 ? word : word.substring(0, slash)) + "' is not an IPv4 or IPv6 address");
      return null;
    }
    int max = addr instanceof Inet4Address ? 32 : 128;
    int prefix = max;
    if (slash >= 0) {
      Long p = Values.parseLong(word.substring(slash + 1));
      if (p == null || p < 0 || p > max || !word.substring(slash + 1).matches("\\d+")) {
        v.error(a, "prefix '" + word.substring(slash + 1) + "' must be 0.." + max);
        return null;
      }
      prefix = p.intValue();
    }
    Optional<String> dev = Optional.empty();
    Optional<String> label = Optional.empty();
    int scope = 0;
    boolean noTrack = false;
    for (int i = 1; i <= a.argc(); i++) {
      String opt = a.arg(i);
      switch (opt) {
        case "dev", "label", "scope" -> {
          if (i == a.argc()) {
            v.error(a, "'" + opt + "' needs a value");
            return null;
          }
          String val = a.arg(++i);
          if (opt.equals("dev")) {
            dev = Optional.of(val);
          } else if (opt.equals("label")) {
            if (!(addr instanceof Inet4Address)) {
              v.error(a, "label applies to IPv4 addresses only");
              return null;
            }
            label = Optional.of(val);
          } else {
            Integer s = scope(val);
            if (s == null) {
              v.error(
                  a,
                  "scope must be global, site, link, host, nowhere or 0..255, not '" + val + "'");
              return null;
            }
            scope = s;
          }
        }
        case "no_track" -> noTrack = true;
        default -> {
          v.error(
              a,
              "virtual address option '"
                  + opt
                  + "' is not supported (dev, label, "
                  + "scope and no_track are)");
          return null;
        }
      }
    }
    return new VirtualAddress(Values.loc(a), addr, prefix, dev, label, scope, noTrack);
  }

  private static Integer scope(String s) {
    switch (s) {
      case "global":
      case "universe":
        return 0;
      case "site":
        return 200;
      case "link":
        return 253;
      case "host":
        return 254;
      case "nowhere":
        return 255;
      default:
        Long x = Values.parseLong(s);
        return x != null && x >= 0 && x <= 255 ? x.intValue() : null;
    }
  }

  void notifyScript(Node c, Map<String, Script> into) {
    Script s = v.script(c);
    if (s == null) {
      return;
    }
    if (into.containsKey(c.keyword())) {
      v.error(c, c.keyword() + " is given twice");
      return;
    }
    into.put(c.keyword(), s);
  }

  /** {@code track_X { NAME [weight N [reverse]] ... }}. */
  void tracks(Node c, List<Track> into, String what) {
    if (!v.block(c)) {
      return;
    }
    for (Node t : c.children) {
      if (t.hasBlock()) {
        v.error(t, what + ": an entry does not take a { } block");
        continue;
      }
      Optional<Integer> weight = Optional.empty();
      boolean reverse = false;
      if (t.argc() > 0) {
        if (!t.arg(1).equals("weight") || t.argc() < 2 || t.argc() > 3) {
          v.error(t, what + ": expected 'NAME [weight N [reverse]]'");
          continue;
        }
        Long w = v.signed(t, 2, -254, 254, "weight");
        if (w == null) {
          continue;
        }
        weight = Optional.of(w.intValue());
        if (t.argc() == 3) {
          if (!t.arg(3).equals("reverse")) {
            v.error(t, what + ": expected 'reverse' after the weight, got '" + t.arg(3) + "'");
            continue;
          }
          reverse = true;
        }
      }
      into.add(new Track(t.keyword(), weight, reverse));
    }
  }

  // --- vrrp_sync_group -------------------------------------------------------------------------

  private SyncGroup syncGroup(
      Node n, Map<String, VrrpInstance> instances, Map<String, String> memberOf) {
    if (n.argc() != 1) {
      v.error(n, "vrrp_sync_group needs exactly one name");
      return null;
    }
    if (!v.block(n)) {
      return null;
    }
    String name = n.arg(1);
    List<String> members = null;
    Map<String, Script> notify = new HashMap<>();
    List<Track> trackScripts = new ArrayList<>();
    boolean ok = true;
    for (Node c : n.children) {
      switch (c.keyword()) {
        case "group" -> {
          if (!v.block(c)) {
            ok = false;
            break;
          }
          if (members != null) {
            v.error(c, "vrrp_sync_group " + name + ": 'group' is given twice");
            ok = false;
            break;
          }
          members = new ArrayList<>();
          for (Node m : c.children) {
            for (String word : m.words) {
              if (!instances.containsKey(word)) {
                v.error(
                    m,
                    "vrrp_sync_group "
                        + name
                        + ": '"
                        + word
                        + "' is not a "
                        + "vrrp_instance"
                        + Keywords.suggest(word, instances.keySet())
                            .map(s -> " (did you mean '" + s + "'?)")
                            .orElse(""));
                ok = false;
              } else if (memberOf.containsKey(word)) {
                v.error(
                    m,
                    "vrrp_instance "
                        + word
                        + " is already in vrrp_sync_group "
                        + memberOf.get(word));
                ok = false;
              } else if (members.contains(word)) {
                v.error(m, "vrrp_sync_group " + name + ": '" + word + "' is listed twice");
                ok = false;
              } else {
                members.add(word);
              }
            }
          }
        }
        case "notify_master", "notify_backup", "notify_fault", "notify_stop", "notify" ->
            notifyScript(c, notify);
        case "track_script" -> tracks(c, trackScripts, "track_script");
        case "smtp_alert" -> v.warn(c, "'smtp_alert' is not used by Fairway; ignored");
        default -> {
          if (instances.containsKey(c.keyword())) {
            v.error(
                c,
                "vrrp_sync_group "
                    + name
                    + ": instance names go inside "
                    + "'group { ... }' (keepalived 2.x syntax)");
            ok = false;
          } else {
            v.unknown(c, GROUP, "vrrp_sync_group");
            ok = false;
          }
        }
      }
    }
    if (members == null || members.isEmpty()) {
      v.error(n, "vrrp_sync_group " + name + " has no 'group { INSTANCE ... }'");
      return null;
    }
    if (!ok) {
      return null;
    }
    for (String m : members) {
      memberOf.put(m, name);
    }
    Notify nf =
        new Notify(
            Optional.ofNullable(notify.get("notify_master")),
            Optional.ofNullable(notify.get("notify_backup")),
            Optional.ofNullable(notify.get("notify_fault")),
            Optional.ofNullable(notify.get("notify_stop")),
            Optional.ofNullable(notify.get("notify")));
    return new SyncGroup(Values.loc(n), name, members, nf, trackScripts);
  }

  // --- the whole ---------------------------------------------------------------------------

  VrrpConfig build() {
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
    Map<String, String> memberOf = new HashMap<>();
    List<SyncGroup> groups = new ArrayList<>();
    Set<String> groupNames = new java.util.HashSet<>();
    for (Node n : groupNodes) {
      SyncGroup g = syncGroup(n, instances, memberOf);
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
        globals,
        List.copyOf(instances.values()),
        groups,
        List.copyOf(scripts.values()),
        syncDaemon(instances));
  }

  // --- lvs_sync_daemon -------------------------------------------------------------------------

  /**
   * The sync daemon's interface name as keepalived checks it (shorter than IP_VS_IFNAME_MAXLEN).
   */
  boolean syncInterface(Node n, int i) {
    if (n.arg(i).getBytes(java.nio.charset.StandardCharsets.UTF_8).length > 15) {
      v.error(
          n, n.keyword() + ": interface name '" + n.arg(i) + "' is longer than 15 " + "characters");
      return false;
    }
    return true;
  }

  /**
   * One sync daemon from {@code lvs_sync_daemon} or {@code lvs_sync_daemon_interface}, resolved
   * against the instances: keepalived's defaults (id = the instance's virtual_router_id, else 0)
   * and bounds; where keepalived reports a bad value and goes on without it, Fairway refuses it.
   */
  private Optional<LvsSyncDaemon> syncDaemon(Map<String, VrrpInstance> instances) {
    LvsSyncDaemon found = null;
    for (Node n : syncDaemonNodes) {
      if (found != null) {
        v.error(n, "lvs_sync_daemon is given twice (first at " + found.location() + ")");
        continue;
      }
      found = syncDaemonLine(n, instances);
    }
    for (Map.Entry<String, Node> e : syncInterfaceNodes.entrySet()) {
      Node c = e.getValue();
      if (found != null) {
        v.error(
            c,
            "lvs_sync_daemon_interface: the sync daemon is already given (at "
                + found.location()
                + "); keep one of them");
        continue;
      }
      if (!instances.containsKey(e.getKey())) {
        continue; // the instance itself was refused, and said why
      }
      found =
          new LvsSyncDaemon(
              Values.loc(c),
              c.arg(1),
              Optional.of(e.getKey()),
              0,
              OptionalInt.empty(),
              OptionalInt.empty(),
              OptionalInt.empty(),
              Optional.empty(),
              true);
    }
    return Optional.ofNullable(found);
  }

  private LvsSyncDaemon syncDaemonLine(Node n, Map<String, VrrpInstance> instances) {
    if (!v.args(n, 1, Integer.MAX_VALUE) || !syncInterface(n, 1)) {
      return null;
    }
    String instance = null;
    Integer id = null;
    OptionalInt maxLen = OptionalInt.empty();
    OptionalInt port = OptionalInt.empty();
    OptionalInt ttl = OptionalInt.empty();
    Optional<InetAddress> group = Optional.empty();
    boolean ok = true;
    for (int i = 2; i <= n.argc(); i++) {
      String w = n.arg(i);
      boolean option = Set.of("inst", "id", "maxlen", "port", "ttl", "group").contains(w);
      if (option && i == n.argc()) {
        v.error(n, "lvs_sync_daemon: '" + w + "' needs a value");
        ok = false;
        continue;
      }
      switch (option ? w : "") {
        case "inst" -> {
          if (instance != null) {
            v.error(n, "lvs_sync_daemon: the VRRP instance is given twice");
            ok = false;
          }
          instance = n.arg(++i);
        }
        case "id" -> {
          Long x = v.number(n, ++i, 0, 255, "id");
          ok &= x != null;
          id = x == null ? null : x.intValue();
        }
        case "maxlen" -> {
          Long x = v.number(n, ++i, 1, LvsSyncDaemon.MAX_LEN, "maxlen");
          ok &= x != null;
          maxLen = x == null ? maxLen : OptionalInt.of(x.intValue());
        }
        case "port" -> {
          Long x = v.number(n, ++i, 1, 65535, "port");
          ok &= x != null;
          port = x == null ? port : OptionalInt.of(x.intValue());
        }
        case "ttl" -> {
          Long x = v.number(n, ++i, 1, 255, "ttl");
          ok &= x != null;
          ttl = x == null ? ttl : OptionalInt.of(x.intValue());
        }
        case "group" -> {
          InetAddress a = v.address(n, ++i, "group");
          if (a != null && !a.isMulticastAddress()) {
            v.error(n, "lvs_sync_daemon: group " + n.arg(i) + " is not a multicast address");
            a = null;
          }
          ok &= a != null;
          group = Optional.ofNullable(a);
        }
        default -> {
          // keepalived's older positional form: INTERFACE [VRRP_INSTANCE [SYNC_ID]].
          if (i == 2) {
            instance = w;
          } else if (i == 3) {
            Long x = v.number(n, i, 0, 255, "id");
            ok &= x != null;
            if (x != null) {
              id = x.intValue();
              v.warn(
                  n,
                  "lvs_sync_daemon: write 'id "
                      + w
                      + "' (keepalived asks for the "
                      + "keyword before the sync id too)");
            }
          } else {
            v.error(
                n,
                "lvs_sync_daemon: unknown option '"
                    + w
                    + "' (inst, id, maxlen, port, "
                    + "ttl or group)");
            ok = false;
            i = n.argc(); // its value, if it has one, is not another unknown option
          }
        }
      }
    }
    VrrpInstance followed = null;
    if (instance != null) {
      followed = instances.get(instance);
      if (followed == null) {
        String name = instance;
        boolean refused =
            instanceNodes.stream().anyMatch(x -> x.argc() == 1 && x.arg(1).equals(name));
        if (!refused) {
          v.error(
              n,
              "lvs_sync_daemon: '"
                  + instance
                  + "' is not a vrrp_instance"
                  + Keywords.suggest(instance, instances.keySet())
                      .map(s -> " (did you mean '" + s + "'?)")
                      .orElse(""));
        }
        ok = false;
      }
    }
    if (!ok) {
      return null;
    }
    int syncId = id != null ? id : followed != null ? followed.virtualRouterId() : 0;
    return new LvsSyncDaemon(
        Values.loc(n),
        n.arg(1),
        Optional.ofNullable(instance),
        syncId,
        maxLen,
        port,
        ttl,
        group,
        false);
  }
}
