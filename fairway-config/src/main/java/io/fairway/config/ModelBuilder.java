package io.fairway.config;

import io.fairway.config.model.Addresses;
import io.fairway.config.model.Config;
import io.fairway.config.model.GlobalDefs;
import io.fairway.config.model.ShardParam;
import io.fairway.config.model.SslContext;
import io.fairway.config.model.TrackFile;
import io.fairway.config.model.VirtualServer;
import io.fairway.config.model.VirtualServerGroup;
import io.fairway.config.model.VirtualServerId;
import java.time.Duration;
import java.util.ArrayList;
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
  static final Duration DEFAULT_DELAY_LOOP = Duration.ofSeconds(60);
  static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(5);

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
              "send_proxy",
              "tls"));

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
    VirtualServerParser vsParser =
        new VirtualServerParser(
            v, groups, trackFiles, shardParams, globals.checkerLogAllFailures());
    for (Node n : vsNodes) {
      VirtualServer vs = vsParser.virtualServer(n);
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
}
