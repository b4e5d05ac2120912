package io.fairway.config;

import io.fairway.config.model.Config;
import io.fairway.config.model.GlobalDefs;
import io.fairway.config.model.ShardParam;
import io.fairway.config.model.SslContext;
import io.fairway.config.model.TrackFile;
import io.fairway.config.model.VirtualServer;
import io.fairway.config.model.VirtualServerGroup;
import io.fairway.config.model.VirtualServerId;
import io.fairway.config.model.base.Addresses;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Gives the block tree its meaning: keyword tables per level, keepalived's defaults, inheritance
 * and load-time adjustments, and Fairway's extensions and stricter checks.
 */
final class ModelBuilder {
  static final Duration DEFAULT_DELAY_LOOP = Duration.ofSeconds(60);
  static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(5);

  /**
   * The top-level blocks; keepalived's VRRP blocks are read by {@link VrrpParser} and its other
   * parts warned about, outside the table.
   */
  static final KeywordTable<ModelBuilder> TABLE =
      new KeywordTable<ModelBuilder>()
          .on("global_defs", ModelBuilder::globalDefs)
          .on("virtual_server", (m, n) -> m.vsNodes.add(n))
          .on("virtual_server_group", (m, n) -> new GroupParser(m.v, m.groups).group(n))
          .on(
              List.of("track_file", "vrrp_track_file"),
              (m, n) -> new TrackFileParser(m.v, m.trackFiles).trackFile(n))
          .on("SSL", ModelBuilder::ssl)
          .on("shard_param", (m, n) -> new ShardParamParser(m.v, m.shardParams).shardParam(n));

  private final Diagnostics diags;
  private final Values v;
  private GlobalDefs globals = GlobalDefs.defaults();
  private boolean sawGlobal;
  private Optional<SslContext> ssl = Optional.empty();
  private final Map<String, VirtualServerGroup> groups = new LinkedHashMap<>();
  private final Map<String, TrackFile> trackFiles = new LinkedHashMap<>();
  private final Map<String, ShardParam> shardParams = new LinkedHashMap<>();

  /** Read once the blocks they may name (groups, track files, shard params) are all known. */
  private final List<Node> vsNodes = new ArrayList<>();

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

  Config build(List<Node> top) {
    for (Node n : top) {
      if (!TABLE.dispatch(this, n)) {
        outside(n);
      }
    }
    List<VirtualServer> servers = uniqueNames(virtualServers());
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

  private static void globalDefs(ModelBuilder m, Node n) {
    if (m.v.block(n)) {
      if (m.sawGlobal) {
        m.v.warn(n, "second global_defs block: its settings are merged into the first");
      }
      m.sawGlobal = true;
      m.globals = new GlobalDefsParser(m.v, m.vrrp).globalDefs(n, m.globals);
    }
  }

  private static void ssl(ModelBuilder m, Node n) {
    if (m.v.block(n)) {
      m.ssl = Optional.of(new GlobalDefsParser(m.v).ssl(n));
    }
  }

  /** A top-level line outside the table: a VRRP block, a part Fairway ignores, or a mistake. */
  private void outside(Node n) {
    if (VrrpParser.isTopLevel(n.keyword())) {
      vrrp.top(n);
    } else if (Keywords.IGNORED_TOP_BLOCKS.contains(n.keyword())
        || Keywords.IGNORED_TOP_KEYWORDS.contains(n.keyword())) {
      v.warn(n, "'" + n.keyword() + "' is keepalived's VRRP/BFD/system part; Fairway ignores it");
    } else {
      v.unknown(
          n,
          union(TABLE.known(), Keywords.IGNORED_TOP_BLOCKS, Keywords.IGNORED_TOP_KEYWORDS),
          "the top level");
    }
  }

  /** The virtual servers, without those keepalived drops and the duplicates Fairway refuses. */
  private List<VirtualServer> virtualServers() {
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
    return servers;
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
      if (Objects.requireNonNull(count.get(vs.name()), "every server was counted") > 1
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
    return s.toBuilder().name(name).build();
  }

  static String defaultName(VirtualServerId.Address a) {
    return Addresses.formatWithPort(a.address(), a.port());
  }
}
