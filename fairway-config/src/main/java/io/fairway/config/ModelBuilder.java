package io.fairway.config;

import io.fairway.config.model.AddressFamily;
import io.fairway.config.model.Addresses;
import io.fairway.config.model.Config;
import io.fairway.config.model.DirectorLayout;
import io.fairway.config.model.DirectorSpec;
import io.fairway.config.model.DnsDiscovery;
import io.fairway.config.model.Forwarding;
import io.fairway.config.model.ForwardingMethod;
import io.fairway.config.model.GlobalDefs;
import io.fairway.config.model.Location;
import io.fairway.config.model.Protocol;
import io.fairway.config.model.ProxySettings;
import io.fairway.config.model.RealServer;
import io.fairway.config.model.RealServerId;
import io.fairway.config.model.Scheduler;
import io.fairway.config.model.SchedulerFlag;
import io.fairway.config.model.Script;
import io.fairway.config.model.ShardParam;
import io.fairway.config.model.SorryServer;
import io.fairway.config.model.SslContext;
import io.fairway.config.model.TrackFile;
import io.fairway.config.model.VirtualServer;
import io.fairway.config.model.VirtualServerGroup;
import io.fairway.config.model.VirtualServerId;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Gives the block tree its meaning: keyword tables per level, keepalived's defaults, inheritance
 * and load-time adjustments, and Fairway's extensions and stricter checks.
 */
final class ModelBuilder {
  static final long UINT32_MAX = Values.UINT32_MAX;
  static final long INT32_MAX = Values.INT32_MAX;
  static final Duration DEFAULT_DELAY_LOOP = Duration.ofSeconds(60);
  static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(5);
  static final Duration DEFAULT_PERSISTENCE = Duration.ofSeconds(360);
  static final long MAX_PERSISTENCE_SECONDS = 31L * 24 * 3600;

  static final Set<String> TOP =
      Set.of(
          "global_defs",
          "virtual_server",
          "virtual_server_group",
          "track_file",
          "vrrp_track_file",
          "SSL",
          "shard_param");
  static final Set<String> GLOBAL =
      Set.of(
          "router_id",
          "notification_email",
          "notification_email_from",
          "smtp_server",
          "smtp_connect_timeout",
          "smtp_alert",
          "lvs_flush",
          "lvs_flush_on_stop",
          "lvs_timeouts",
          "checker_log_all_failures",
          "rs_init_notifies",
          "no_checker_emails",
          "script_user",
          "enable_script_security");
  static final Set<String> TIMING =
      Set.of(
          "delay_loop",
          "connect_timeout",
          "retry",
          "delay_before_retry",
          "warmup",
          "alpha",
          "rise",
          "fall");
  static final Set<String> VS =
      union(
          TIMING,
          Set.of(
              "lb_algo",
              "lvs_sched",
              "lb_kind",
              "lvs_method",
              "persistence_timeout",
              "persistence_granularity",
              "persistence_engine",
              "protocol",
              "ops",
              "flag-1",
              "flag-2",
              "flag-3",
              "sh-port",
              "sh-fallback",
              "mh-port",
              "mh-fallback",
              "hashed",
              "ip_family",
              "inhibit_on_failure",
              "omega",
              "quorum",
              "hysteresis",
              "quorum_up",
              "quorum_down",
              "weight",
              "sorry_server",
              "sorry_server_inhibit",
              "sorry_server_lvs_method",
              "ha_suspend",
              "virtualhost",
              "smtp_alert",
              "snmp_name",
              "real_server",
              "real_server_dns",
              "name",
              "shard",
              "fallback",
              "hash",
              "hash_balance_factor",
              "quorum_max",
              "overflow_to_sorry_server",
              "slow_start",
              "max_conns",
              "proxy_timeouts",
              "http_forwarded",
              "access_log",
              "tls",
              "proxy_protocol",
              "director",
              "members",
              "alt_header",
              "announce"));
  static final Set<String> RS =
      union(
          union(TIMING, CheckerParser.CHECKERS),
          Set.of(
              "weight",
              "lvs_method",
              "uthreshold",
              "lthreshold",
              "inhibit_on_failure",
              "notify_up",
              "notify_down",
              "smtp_alert",
              "virtualhost",
              "snmp_name",
              "name",
              "ident",
              "slow_start",
              "max_conns",
              "send_proxy"));

  private final Diagnostics diags;
  private final Values v;
  private GlobalDefs globals = GlobalDefs.defaults();
  private final Map<String, VirtualServerGroup> groups = new LinkedHashMap<>();
  private final Map<String, TrackFile> trackFiles = new LinkedHashMap<>();
  private final Map<String, ShardParam> shardParams = new LinkedHashMap<>();
  private final VrrpParser vrrp;

  ModelBuilder(Diagnostics diags) {
    this.diags = diags;
    this.v = new Values(diags);
    this.vrrp = new VrrpParser(v);
  }

  @SafeVarargs
  static <T> Set<T> union(Set<T>... sets) {
    Set<T> all = new HashSet<>();
    for (Set<T> s : sets) {
      all.addAll(s);
    }
    return Set.copyOf(all);
  }

  private static Location loc(Node n) {
    return Values.loc(n);
  }

  private void unknown(Node n, Set<String> known, String where) {
    v.unknown(n, known, where);
  }

  Config build(List<Node> top) {
    List<Node> vsNodes = new ArrayList<>();
    Optional<SslContext> ssl = Optional.empty();
    boolean sawGlobal = false;
    for (Node n : top) {
      switch (n.keyword()) {
        case "global_defs":
          if (v.block(n)) {
            if (sawGlobal) {
              v.warn(n, "second global_defs block: its settings are merged into the first");
            }
            sawGlobal = true;
            globals = new GlobalDefsParser(v, vrrp).globalDefs(n, globals);
          }
          break;
        case "virtual_server":
          vsNodes.add(n);
          break;
        case "virtual_server_group":
          new GroupParser(v, groups).group(n);
          break;
        case "track_file":
        case "vrrp_track_file":
          new TrackFileParser(v, trackFiles).trackFile(n);
          break;
        case "shard_param":
          new ShardParamParser(v, shardParams).shardParam(n);
          break;
        case "SSL":
          if (v.block(n)) {
            ssl = Optional.of(new GlobalDefsParser(v).ssl(n));
          }
          break;
        default:
          if (VrrpParser.isTopLevel(n.keyword())) {
            vrrp.top(n);
          } else if (Keywords.IGNORED_TOP_BLOCKS.contains(n.keyword())
              || Keywords.IGNORED_TOP_KEYWORDS.contains(n.keyword())) {
            v.warn(
                n,
                "'" + n.keyword() + "' is keepalived's VRRP/BFD/system part; Fairway ignores it");
          } else {
            unknown(
                n,
                union(TOP, Keywords.IGNORED_TOP_BLOCKS, Keywords.IGNORED_TOP_KEYWORDS),
                "the top level");
          }
      }
    }
    List<VirtualServer> servers = new ArrayList<>();
    Map<VirtualServerId, VirtualServer> byId = new HashMap<>();
    for (Node n : vsNodes) {
      VirtualServer vs = virtualServer(n);
      if (vs == null) {
        continue;
      }
      if (byId.containsKey(vs.id())) {
        v.error(
            n,
            "duplicate virtual_server "
                + vs.id()
                + " (first at "
                + byId.get(vs.id()).location()
                + ")");
        continue;
      }
      byId.put(vs.id(), vs);
      servers.add(vs);
    }
    servers = uniqueNames(servers);
    AnnounceParser.check(diags, globals.announcement(), servers);
    return new Config(
        globals,
        List.copyOf(groups.values()),
        servers,
        List.copyOf(trackFiles.values()),
        ssl,
        vrrp.build(),
        List.copyOf(shardParams.values()));
  }

  /** Default names may clash (same IP:PORT over TCP and UDP); explicit ones must not. */
  private List<VirtualServer> uniqueNames(List<VirtualServer> servers) {
    Map<String, Integer> count = new HashMap<>();
    for (VirtualServer vs : servers) {
      count.merge(vs.name(), 1, Integer::sum);
    }
    List<VirtualServer> out = new ArrayList<>();
    Map<String, VirtualServer> seen = new HashMap<>();
    for (VirtualServer vs : servers) {
      VirtualServer r = vs;
      if (count.get(vs.name()) > 1
          && vs.id() instanceof VirtualServerId.Address a
          && vs.name().equals(defaultName(a))) {
        r = withName(vs, vs.name() + "/" + a.protocol().name().toLowerCase(Locale.ROOT));
      }
      VirtualServer prev = seen.putIfAbsent(r.name(), r);
      if (prev != null) {
        diags.error(
            r.location().file(),
            r.location().line(),
            "duplicate virtual_server name '"
                + r.name()
                + "' (also used at "
                + prev.location()
                + ")",
            "name " + r.name());
        continue;
      }
      out.add(r);
    }
    return out;
  }

  private static VirtualServer withName(VirtualServer s, String name) {
    return new VirtualServer(
        s.location(),
        s.id(),
        name,
        s.scheduler(),
        s.director(),
        s.hashBalanceFactor(),
        s.forwarding(),
        s.flags(),
        s.persistenceTimeout(),
        s.persistenceGranularity(),
        s.persistenceEngine(),
        s.haSuspend(),
        s.omega(),
        s.quorum(),
        s.hysteresis(),
        s.quorumUp(),
        s.quorumDown(),
        s.sorryServer(),
        s.realServers(),
        s.overflowToSorryServer(),
        s.slowStart(),
        s.proxy(),
        s.layout(),
        s.accessLogs(),
        s.discovery(),
        s.announce());
  }

  static String defaultName(VirtualServerId.Address a) {
    return Addresses.formatWithPort(a.address(), a.port());
  }

  // --- virtual_server --------------------------------------------------------------------------

  private VirtualServer virtualServer(Node n) {
    VirtualServerId.Address addrId = null;
    Long fwmark = null;
    String groupName = null;
    if (n.argc() >= 1 && n.arg(1).equals("fwmark")) {
      if (n.argc() != 2) {
        v.error(n, "expected 'virtual_server fwmark N'");
        return null;
      }
      fwmark = v.number(n, 2, 1, UINT32_MAX, "fwmark");
      if (fwmark == null) {
        return null;
      }
    } else if (n.argc() >= 1 && n.arg(1).equals("group")) {
      if (n.argc() != 2) {
        v.error(n, "expected 'virtual_server group NAME'");
        return null;
      }
      groupName = n.arg(2);
      if (!groups.containsKey(groupName)) {
        Optional<String> s = Keywords.suggest(groupName, groups.keySet());
        v.error(
            n,
            "virtual_server_group '"
                + groupName
                + "' is not defined"
                + s.map(x -> " (did you mean '" + x + "'?)").orElse(""));
        return null;
      }
    } else {
      if (n.argc() < 1 || n.argc() > 2) {
        v.error(
            n,
            "expected 'virtual_server IP [PORT]', 'virtual_server fwmark N' or "
                + "'virtual_server group NAME'");
        return null;
      }
      InetAddress a = v.address(n, 1, "address");
      Integer port = n.argc() == 2 ? v.port(n, 2) : Integer.valueOf(0);
      if (a == null || port == null) {
        return null;
      }
      addrId = new VirtualServerId.Address(a, Protocol.TCP, port);
    }
    if (!v.block(n)) {
      return null;
    }

    String name = null;
    Scheduler scheduler = null;
    Node schedulerNode = null;
    Forwarding forwarding = null;
    Node forwardingNode = null;
    Duration persistence = null;
    Integer granularity = null;
    Node granularityNode = null;
    Optional<String> engine = Optional.empty();
    Protocol protocol = null;
    Node protocolNode = null;
    Set<SchedulerFlag> flags = EnumSet.noneOf(SchedulerFlag.class);
    Map<SchedulerFlag, Node> flagNodes = new HashMap<>();
    AddressFamily ipFamily = null;
    InheritedTiming timing = new InheritedTiming();
    boolean inhibit = false;
    boolean omega = false;
    Long quorum = null;
    Long hysteresis = null;
    Optional<Script> quorumUp = Optional.empty();
    Optional<Script> quorumDown = Optional.empty();
    Double weight = null;
    Node weightNode = null;
    Node sorryNode = null;
    boolean sorryInhibit = false;
    Forwarding sorryForwarding = null;
    boolean overflow = false;
    Node overflowNode = null;
    Duration slowStart = Duration.ZERO;
    boolean announce = false;
    int maxConns = 0;
    Node maxConnsNode = null;
    boolean haSuspend = false;
    String virtualhost = null;
    Map<String, Node> directorBlocks = new LinkedHashMap<>();
    Integer hashBalance = null;
    Node hashBalanceNode = null;
    ProxySettings.Timeouts proxyTimeouts = ProxySettings.Timeouts.NONE;
    Node proxyProtocolNode = null;
    boolean httpForwarded = false;
    List<io.fairway.config.model.AccessLogs.Entry> accessLogs = new ArrayList<>();
    Node tlsNode = null;
    io.fairway.config.model.TlsSettings tls = io.fairway.config.model.TlsSettings.NONE;
    List<Node> rsNodes = new ArrayList<>();
    List<Node> dnsNodes = new ArrayList<>();
    List<Node> groupNodes = new ArrayList<>();
    Node membersNode = null;
    Node altHeaderNode = null;

    for (Node c : n.children) {
      String k = c.keyword();
      if (InheritedTiming.read(c, timing, false, v)) {
        continue;
      }
      switch (k) {
        case "name":
          if (v.args(c, 1, 1)) {
            name = c.arg(1);
          }
          break;
        case "lb_algo":
        case "lvs_sched":
          if (v.args(c, 1, 1)) {
            scheduler = scheduler(c);
            schedulerNode = c;
          }
          break;
        case "lb_kind":
        case "lvs_method":
          forwarding = ForwardingParser.parse(c, v);
          forwardingNode = c;
          break;
        case "persistence_timeout":
          if (v.args(c, 0, 1)) {
            if (c.argc() == 0) {
              persistence = DEFAULT_PERSISTENCE;
            } else {
              Long s = v.number(c, 1, 0, MAX_PERSISTENCE_SECONDS, "seconds");
              if (s != null) {
                persistence = Duration.ofSeconds(s);
              }
            }
          }
          break;
        case "persistence_granularity":
          if (v.args(c, 1, 1)) {
            granularity = granularity(c);
            granularityNode = c;
          }
          break;
        case "persistence_engine":
          if (v.args(c, 1, 1)) {
            engine = Optional.of(c.arg(1));
          }
          break;
        case "protocol":
          if (v.args(c, 1, 1)) {
            try {
              protocol = Protocol.valueOf(c.arg(1).toUpperCase(Locale.ROOT));
              protocolNode = c;
            } catch (IllegalArgumentException e) {
              v.error(c, "protocol: '" + c.arg(1) + "' is not TCP, UDP or SCTP");
            }
          }
          break;
        case "ops":
        case "flag-1":
        case "flag-2":
        case "flag-3":
        case "sh-port":
        case "sh-fallback":
        case "mh-port":
        case "mh-fallback":
          if (v.args(c, 0, 0)) {
            SchedulerFlag f = SchedulerFlag.byKeyword(k).orElseThrow();
            flags.add(f);
            flagNodes.put(f, c);
          }
          break;
        case "hashed":
          v.warn(c, "'hashed' has no effect (keepalived ignores it too)");
          break;
        case "ip_family":
          if (v.args(c, 1, 1)) {
            ipFamily = v.family(c, c.arg(1));
          }
          break;
        case "inhibit_on_failure":
          {
            Boolean b = v.args(c, 0, 1) ? v.bool(c, 1) : null;
            if (b != null) {
              inhibit = b;
            }
            break;
          }
        case "omega":
          {
            Boolean b = v.args(c, 0, 1) ? v.bool(c, 1) : null;
            if (b != null) {
              omega = b;
            }
            break;
          }
        case "quorum":
          if (v.args(c, 1, 1)) {
            quorum = v.number(c, 1, 1, UINT32_MAX, "quorum");
          }
          break;
        case "hysteresis":
          if (v.args(c, 1, 1)) {
            hysteresis = v.number(c, 1, 0, UINT32_MAX, "hysteresis");
          }
          break;
        case "quorum_up":
          quorumUp = Optional.ofNullable(v.script(c));
          break;
        case "quorum_down":
          quorumDown = Optional.ofNullable(v.script(c));
          break;
        case "weight":
          if (v.args(c, 1, 1)) {
            weight = v.decimal(c, 1, 0, INT32_MAX, "weight");
            weightNode = c;
          }
          break;
        case "sorry_server":
          if (v.args(c, 1, 2)) {
            sorryNode = c;
          }
          break;
        case "sorry_server_inhibit":
          {
            Boolean b = v.args(c, 0, 1) ? v.bool(c, 1) : null;
            if (b != null) {
              sorryInhibit = b;
            }
            break;
          }
        case "sorry_server_lvs_method":
          sorryForwarding = ForwardingParser.parse(c, v);
          break;
        case "overflow_to_sorry_server":
          {
            Boolean b = v.args(c, 0, 1) ? v.bool(c, 1) : null;
            if (b != null) {
              overflow = b;
              overflowNode = c;
            }
            break;
          }
        case "announce":
          announce = new AnnounceParser(v).virtualServer(c, addrId);
          break;
        case "slow_start":
          {
            Duration d = v.slowStart(c);
            if (d != null) {
              slowStart = d;
            }
            break;
          }
        case "max_conns":
          {
            Integer m = v.maxConns(c);
            if (m != null) {
              maxConns = m;
              maxConnsNode = c;
            }
            break;
          }
        case "ha_suspend":
          if (v.args(c, 0, 0)) {
            if (fwmark != null || groupName != null) {
              // There is no address whose presence could be watched (keepalived refuses it too).
              v.warn(c, "ha_suspend needs a virtual server address; ignored for fwmark and group");
            } else {
              haSuspend = true;
            }
          }
          break;
        case "virtualhost":
          if (v.args(c, 1, 1)) {
            virtualhost = c.arg(1);
          }
          break;
        case "smtp_alert":
        case "snmp_name":
        case "quorum_max":
          v.warn(c, "'" + k + "' is not supported by Fairway yet; ignored");
          break;
        case "shard":
        case "fallback":
        case "hash":
          if (v.block(c)) {
            if (c.argc() > 0) {
              v.error(c, "'" + k + "' takes no arguments before its { } block");
            }
            directorBlocks.put(k, c);
          }
          break;
        case "hash_balance_factor":
          if (v.args(c, 1, 1)) {
            Long f = v.number(c, 1, 0, 100_000, "factor");
            if (f != null && f != 0 && f <= 100) {
              v.error(
                  c,
                  "hash_balance_factor must be 0 (off) or above 100 (percent of the "
                      + "mean load)");
            } else if (f != null) {
              hashBalance = f.intValue();
              hashBalanceNode = c;
            }
          }
          break;
        case "proxy_timeouts":
          if (v.block(c)) {
            if (c.argc() > 0) {
              v.error(c, "'proxy_timeouts' takes no arguments before its { } block");
            }
            proxyTimeouts = ProxySettingsParser.timeouts(c, v);
          }
          break;
        case "proxy_protocol":
          if (ProxyProtocolParser.accept(c, v) != null) {
            proxyProtocolNode = c;
          }
          break;
        case "http_forwarded":
          {
            Boolean b = v.args(c, 0, 1) ? v.bool(c, 1) : null;
            if (b != null) {
              httpForwarded = b;
            }
            break;
          }
        case "access_log":
          {
            io.fairway.config.model.AccessLogs.Entry a = AccessLogParser.parse(c, v, accessLogs);
            if (a != null) {
              accessLogs.add(a);
            }
            break;
          }
        case "tls":
          if (v.block(c)) {
            tlsNode = c;
            tls = TlsParser.parse(c, v);
          }
          break;
        case "real_server":
          rsNodes.add(c);
          break;
        case "real_server_dns":
          dnsNodes.add(c);
          break;
        case "director":
          groupNodes.add(c);
          break;
        case "members":
          if (membersNode != null) {
            v.error(
                c,
                "a second 'members' line (the first is at line " + membersNode.line.line() + ")");
          }
          membersNode = c;
          break;
        case "alt_header":
          altHeaderNode = c;
          break;
        default:
          if (k.equals("lthreshold") || k.equals("uthreshold")) {
            v.error(c, "'" + k + "' belongs in a real_server block");
          } else {
            unknown(c, VS, "virtual_server");
          }
      }
    }

    // --- defaults and cross-keyword checks ---
    if (scheduler == null) {
      scheduler = Scheduler.WLC;
    }
    boolean varnish = !scheduler.isKernel();
    if (forwarding == null) {
      forwarding = Forwarding.of(varnish ? ForwardingMethod.PROXY : ForwardingMethod.NAT);
    } else if (varnish && forwarding.method().isKernel()) {
      v.error(
          forwardingNode,
          "lb_algo "
              + scheduler.keyword()
              + " is a Varnish director and "
              + "needs Fairway's data plane: lb_kind PROXY or HTTP, not "
              + forwarding.method());
    }
    boolean userspace = !forwarding.method().isKernel();
    if (fwmark != null || groupName != null) {
      if (userspace) {
        v.error(
            forwardingNode != null ? forwardingNode : n,
            "lb_kind "
                + forwarding.method()
                + " needs 'virtual_server IP PORT' (the proxy listens on an address, not a "
                + (fwmark != null ? "fwmark" : "group")
                + ")");
      }
    }
    if (protocol == null) {
      if (fwmark == null) {
        if (userspace) {
          protocol = Protocol.TCP;
        } else {
          protocol = Protocol.UDP;
          v.warn(n, "no protocol set - defaulting to UDP, as keepalived does");
        }
      } else {
        protocol = Protocol.TCP;
      }
    } else if (fwmark != null) {
      v.warn(protocolNode, "protocol is ignored for a fwmark virtual_server");
      protocol = Protocol.TCP;
    }
    if (userspace && protocol != Protocol.TCP) {
      v.error(
          protocolNode != null ? protocolNode : n,
          "lb_kind " + forwarding.method() + " proxies TCP only, not " + protocol);
    }
    if (tlsNode != null) {
      TlsParser.checkForwarding(tlsNode, forwarding.method(), v);
    }
    for (SchedulerFlag f : flags) {
      Node fn = flagNodes.get(f);
      boolean sh = f == SchedulerFlag.SH_PORT || f == SchedulerFlag.SH_FALLBACK;
      boolean mh = f == SchedulerFlag.MH_PORT || f == SchedulerFlag.MH_FALLBACK;
      if (sh && scheduler != Scheduler.SH) {
        v.error(fn, f.keyword() + " needs lb_algo sh (it is " + scheduler.keyword() + ")");
      }
      if (mh && scheduler != Scheduler.MH) {
        v.error(fn, f.keyword() + " needs lb_algo mh (it is " + scheduler.keyword() + ")");
      }
      if (f == SchedulerFlag.OPS && protocol != Protocol.UDP) {
        v.error(fn, "ops (one-packet scheduling) is for UDP services only");
      }
    }
    if (hashBalance != null && scheduler != Scheduler.MH && scheduler != Scheduler.SHARD) {
      v.error(
          hashBalanceNode,
          "hash_balance_factor applies to lb_algo mh or shard, not " + scheduler.keyword());
    }
    DirectorSpec director =
        new DirectorParser(v, shardParams).director(scheduler, directorBlocks, forwarding.method());

    VirtualServerId id;
    int vsPort = 0;
    if (addrId != null) {
      id = new VirtualServerId.Address(addrId.address(), protocol, addrId.port());
      vsPort = addrId.port();
    } else if (groupName != null) {
      id = new VirtualServerId.Group(groupName, protocol);
    } else {
      id = null;
    }
    if (granularity != null && persistence == null) {
      persistence = DEFAULT_PERSISTENCE;
    }
    if (persistence == null) {
      persistence = Duration.ZERO;
    }
    if (addrId != null && vsPort == 0 && persistence.isZero()) {
      v.warn(n, "port 0 is only valid for persistent services - setting persistence_timeout 360");
      persistence = DEFAULT_PERSISTENCE;
    }
    if (weight != null && !varnish && weight != Math.rint(weight)) {
      v.error(weightNode, "weight must be an integer for lb_algo " + scheduler.keyword());
    }

    RealServerParser rsParser =
        new RealServerParser(v, trackFiles, globals.checkerLogAllFailures());
    RealServerParser.VsContext ctx =
        new RealServerParser.VsContext(
            scheduler,
            forwarding,
            fwmark != null || groupName != null,
            vsPort,
            addrId == null ? null : AddressFamily.of(addrId.address()),
            weight == null ? 1 : weight,
            inhibit,
            timing,
            virtualhost,
            slowStart,
            maxConns,
            protocol);
    if (maxConnsNode != null && maxConns > 0) {
      v.maxConnsPlane(maxConnsNode, forwarding, protocol);
    }
    if (proxyProtocolNode != null) {
      ProxyProtocolParser.plane(proxyProtocolNode, v, forwarding, protocol);
    }
    List<RealServer> reals = new ArrayList<>();
    Map<RealServerId, RealServer> seen = new HashMap<>();
    Map<String, RealServer> names = new HashMap<>();
    Map<String, RealServer> idents = new HashMap<>();
    for (Node rn : rsNodes) {
      RealServer rs = rsParser.realServer(rn, ctx);
      if (rs == null) {
        continue;
      }
      if (seen.containsKey(rs.id())) {
        v.warn(
            rn,
            "duplicate real_server "
                + rs.id()
                + " (first at "
                + seen.get(rs.id()).location()
                + ") - ignored, as keepalived does");
        continue;
      }
      RealServer prevName = names.get(rs.name());
      if (prevName != null) {
        v.error(
            rn,
            "duplicate real_server name '" + rs.name() + "' (also at " + prevName.location() + ")");
        continue;
      }
      RealServer prevIdent = idents.get(rs.ident());
      if (prevIdent != null) {
        v.error(
            rn,
            "duplicate real_server ident '"
                + rs.ident()
                + "' (also at "
                + prevIdent.location()
                + ")");
        continue;
      }
      seen.put(rs.id(), rs);
      names.put(rs.name(), rs);
      idents.put(rs.ident(), rs);
      reals.add(rs);
    }
    List<DnsDiscovery> discovery = new DnsBlockParser(v, rsParser).all(dnsNodes, ctx);
    DirectorLayout layout =
        new LayoutParser(v, shardParams)
            .layout(
                n,
                scheduler,
                director,
                forwarding.method(),
                groupNodes,
                membersNode,
                altHeaderNode,
                reals);
    if (fwmark != null) {
      AddressFamily af = ipFamily;
      if (af == null) {
        af = reals.isEmpty() ? AddressFamily.INET : reals.get(0).id().family();
      }
      id = new VirtualServerId.Fwmark(fwmark, af);
    } else if (ipFamily != null) {
      v.warn(n, "ip_family only matters for fwmark virtual servers; ignored");
    }

    Optional<SorryServer> sorry = Optional.empty();
    if (sorryNode != null) {
      InetAddress a = v.address(sorryNode, 1, "address");
      Integer p = sorryNode.argc() == 2 ? v.port(sorryNode, 2) : Integer.valueOf(0);
      if (a != null && p != null) {
        Forwarding sf = sorryForwarding != null ? sorryForwarding : forwarding;
        int port = rsParser.effectivePort(sorryNode, p, sf, ctx);
        RealServerId sid = new RealServerId(a, port);
        for (RealServer rs : reals) {
          if (rs.id().equals(sid)) {
            v.error(
                sorryNode,
                "sorry_server "
                    + sid
                    + " is also a real_server (at "
                    + rs.location()
                    + "); Fairway refuses this (keepalived issue #1370)");
          }
        }
        sorry = Optional.of(new SorryServer(loc(sorryNode), sid, sf, sorryInhibit));
      }
    } else if (sorryInhibit) {
      v.warn(n, "sorry_server_inhibit without sorry_server has no effect");
    }
    if (overflow && sorryNode == null) {
      v.error(
          overflowNode,
          "overflow_to_sorry_server needs a sorry_server in the same "
              + "virtual_server (there is nowhere to overflow to)");
    }

    if (reals.isEmpty() && discovery.isEmpty()) {
      v.warn(
          n,
          "virtual_server "
              + (id == null ? "" : id + " ")
              + "has no real_server - ignored, "
              + "as keepalived does");
      return null;
    }
    if (id == null) {
      return null;
    }

    long q = quorum == null ? 1 : quorum;
    long sum = 0;
    for (RealServer rs : reals) {
      sum += (long) Math.floor(rs.weight());
    }
    if (q > sum && sum > 0) {
      v.warn(
          n,
          "quorum "
              + q
              + " exceeds the total weight of the real servers "
              + sum
              + "; reducing quorum to "
              + sum
              + ", as keepalived does");
      q = sum;
    }
    long h = hysteresis == null ? 0 : hysteresis;
    if (h >= q && h > 0) {
      v.warn(
          n,
          "hysteresis "
              + h
              + " >= quorum "
              + q
              + "; setting hysteresis to "
              + (q - 1)
              + ", as keepalived does");
      h = q - 1;
    }
    if (granularityNode != null && addrId != null && granularity != null) {
      int max = addrId.address() instanceof Inet6Address ? 128 : 32;
      if (granularity > max) {
        v.error(
            granularityNode,
            "persistence_granularity /" + granularity + " is longer than the address");
      }
    }
    String vsName = name;
    if (vsName == null) {
      if (id instanceof VirtualServerId.Address a) {
        vsName = defaultName(a);
      } else if (id instanceof VirtualServerId.Fwmark f) {
        vsName = "fwmark:" + f.fwmark();
      } else {
        vsName = "group:" + ((VirtualServerId.Group) id).name();
      }
    }
    return new VirtualServer(
        loc(n),
        id,
        vsName,
        scheduler,
        director,
        hashBalance == null ? 0 : hashBalance,
        forwarding,
        flags,
        persistence,
        Optional.ofNullable(granularity),
        engine,
        haSuspend,
        omega,
        q,
        h,
        quorumUp,
        quorumDown,
        sorry,
        reals,
        overflow,
        slowStart,
        new ProxySettings(
            proxyTimeouts,
            httpForwarded,
            tls,
            proxyProtocolNode == null
                ? io.fairway.config.model.ProxyProtocol.NONE
                : new io.fairway.config.model.ProxyProtocol(true, null)),
        layout,
        new io.fairway.config.model.AccessLogs(accessLogs),
        discovery,
        announce);
  }

  private Scheduler scheduler(Node c) {
    Optional<Scheduler> s = Scheduler.byKeyword(c.arg(1));
    if (s.isEmpty()) {
      Optional<String> sug =
          Keywords.suggest(
              c.arg(1), Arrays.stream(Scheduler.values()).map(Scheduler::keyword).toList());
      v.error(
          c,
          "unknown scheduler '"
              + c.arg(1)
              + "'"
              + sug.map(x -> " (did you mean '" + x + "'?)").orElse("")
              + "; known: "
              + String.join(
                  " ", Arrays.stream(Scheduler.values()).map(Scheduler::keyword).toList()));
      return null;
    }
    return s.get();
  }

  private Integer granularity(Node c) {
    String s = c.arg(1);
    InetAddress mask = Values.address(s);
    if (mask instanceof Inet4Address) {
      int bits = 0;
      byte[] b = mask.getAddress();
      int m = ((b[0] & 0xff) << 24) | ((b[1] & 0xff) << 16) | ((b[2] & 0xff) << 8) | (b[3] & 0xff);
      bits = Integer.bitCount(m);
      if (m != (bits == 0 ? 0 : -1 << (32 - bits))) {
        v.error(c, "persistence_granularity " + s + " is not a contiguous netmask");
        return null;
      }
      return bits;
    }
    Long p = Values.parseLong(s);
    if (p == null || p < 1 || p > 128) {
      v.error(c, "persistence_granularity '" + s + "' is not a netmask or a prefix length 1..128");
      return null;
    }
    return p.intValue();
  }
}
