package io.fairway.config;

import io.fairway.config.model.AccessLogs;
import io.fairway.config.model.DirectorLayout;
import io.fairway.config.model.DirectorSpec;
import io.fairway.config.model.DnsDiscovery;
import io.fairway.config.model.Forwarding;
import io.fairway.config.model.LbKind;
import io.fairway.config.model.PersistenceSettings;
import io.fairway.config.model.ProxyProtocol;
import io.fairway.config.model.ProxySettings;
import io.fairway.config.model.Quorum;
import io.fairway.config.model.RealServer;
import io.fairway.config.model.RealServerId;
import io.fairway.config.model.Scheduler;
import io.fairway.config.model.SchedulerFlag;
import io.fairway.config.model.Scheduling;
import io.fairway.config.model.ShardParam;
import io.fairway.config.model.SorryPolicy;
import io.fairway.config.model.SorryServer;
import io.fairway.config.model.TlsSettings;
import io.fairway.config.model.TrackFile;
import io.fairway.config.model.VirtualServer;
import io.fairway.config.model.VirtualServerGroup;
import io.fairway.config.model.VirtualServerId;
import io.fairway.table.AddressFamily;
import io.fairway.table.Protocol;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A {@code virtual_server} block: its header, its keyword table ({@link VirtualServerBlock}), then
 * keepalived's defaults and the checks that need the whole block, its real servers included.
 */
final class VirtualServerParser {
  private final Values v;
  private final Map<String, VirtualServerGroup> groups;
  private final Map<String, TrackFile> trackFiles;
  private final Map<String, ShardParam> shardParams;
  private final boolean logAllFailures;

  VirtualServerParser(
      Values v,
      Map<String, VirtualServerGroup> groups,
      Map<String, TrackFile> trackFiles,
      Map<String, ShardParam> shardParams,
      boolean logAllFailures) {
    this.v = v;
    this.groups = groups;
    this.trackFiles = trackFiles;
    this.shardParams = shardParams;
    this.logAllFailures = logAllFailures;
  }

  /** The known keywords of a virtual_server block, for suggestions. */
  static java.util.Set<String> known() {
    return VirtualServerBlock.TABLE.known();
  }

  @Nullable VirtualServer virtualServer(Node n) {
    VirtualServerBlock b = header(n);
    if (b == null || !v.block(n)) {
      return null;
    }
    for (Node c : n.block()) {
      if (!VirtualServerBlock.TABLE.dispatch(b, c)) {
        v.unknown(c, VirtualServerBlock.TABLE.known(), "virtual_server");
      }
    }
    return build(b);
  }

  private @Nullable VirtualServerBlock header(Node n) {
    if (n.argc() >= 1 && n.arg(1).equals("fwmark")) {
      if (n.argc() != 2) {
        v.error(n, "expected 'virtual_server fwmark N'");
        return null;
      }
      Long fwmark = v.number(n, 2, 1, Values.UINT32_MAX, "fwmark");
      return fwmark == null ? null : new VirtualServerBlock(v, n, null, fwmark, null);
    }
    if (n.argc() >= 1 && n.arg(1).equals("group")) {
      if (n.argc() != 2) {
        v.error(n, "expected 'virtual_server group NAME'");
        return null;
      }
      String groupName = n.arg(2);
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
      return new VirtualServerBlock(v, n, null, null, groupName);
    }
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
    return new VirtualServerBlock(
        v, n, new VirtualServerId.Address(a, Protocol.TCP, port), null, null);
  }

  /**
   * What the service's lb_algo, lb_kind, protocol and TLS settle to once keepalived's defaults are
   * applied: every later check and default depends on these four.
   */
  private record Service(
      Scheduler scheduler, Forwarding forwarding, Protocol protocol, TlsSettings tls) {}

  /**
   * The service's id (a fwmark takes its family from its first real server), the servers the block
   * names or discovers, and how its director lays them out.
   */
  private record Pool(
      VirtualServerId id,
      List<RealServer> reals,
      List<DnsDiscovery> discovery,
      DirectorLayout layout,
      Optional<SorryServer> sorry) {}

  private @Nullable VirtualServer build(VirtualServerBlock b) {
    Service s = service(b);
    DirectorSpec director =
        new DirectorParser(v, shardParams)
            .director(s.scheduler(), b.directorBlocks, s.forwarding().method());
    Duration persistence = persistence(b);
    checkWeight(b, s.scheduler());
    RealServerParser rsParser = new RealServerParser(v, trackFiles, logAllFailures);
    RealServerParser.VsContext ctx = context(b, s);
    checkPlanes(b, s);
    Pool pool = pool(b, s, director, rsParser, ctx);
    VirtualServerId id = pool.id();
    if (pool.reals().isEmpty() && pool.discovery().isEmpty()) {
      v.warn(
          b.node,
          "virtual_server "
              + (id == null ? "" : id + " ")
              + "has no real_server - ignored, "
              + "as keepalived does");
      return null;
    }
    if (id == null) {
      return null;
    }
    return assemble(b, s, director, persistence, pool);
  }

  /** The scheduler, lb_kind and protocol with their defaults, and the checks between them. */
  private Service service(VirtualServerBlock b) {
    Scheduler scheduler = b.scheduler != null ? b.scheduler : Scheduler.WLC;
    Forwarding forwarding = forwarding(b, scheduler);
    Protocol protocol = protocol(b, forwarding);
    TlsSettings tls = tls(b, forwarding);
    checkFlags(b, scheduler, protocol);
    if (b.hashBalance != null && scheduler != Scheduler.MH && scheduler != Scheduler.SHARD) {
      v.error(
          Objects.requireNonNull(b.hashBalanceNode, "hash_balance_factor was read from a node"),
          "hash_balance_factor applies to lb_algo mh or shard, not " + scheduler.keyword());
    }
    return new Service(scheduler, forwarding, protocol, tls);
  }

  /** The block's tls, or the plain-text ALPN settings that replace it. */
  private TlsSettings tls(VirtualServerBlock b, Forwarding forwarding) {
    if (b.tlsNode != null) {
      TlsParser.checkForwarding(b.tlsNode, forwarding.method(), v);
    }
    TlsSettings tls = b.tls;
    if (b.alpnNode != null) {
      TlsSettings plain = TlsParser.plain(b.alpnNode, b.alpn, b.tlsNode, forwarding.method(), v);
      if (plain != null) {
        tls = plain;
      }
    }
    return tls;
  }

  private void checkWeight(VirtualServerBlock b, Scheduler scheduler) {
    ServerKeywords.Common c = b.common;
    if (c.weight != null && scheduler.isKernel() && c.weight != Math.rint(c.weight)) {
      v.error(
          Objects.requireNonNull(c.weightNode, "weight was read from a node"),
          "weight must be an integer for lb_algo " + scheduler.keyword());
    }
  }

  /** What the block's real servers inherit from it. */
  private RealServerParser.VsContext context(VirtualServerBlock b, Service s) {
    ServerKeywords.Common c = b.common;
    return new RealServerParser.VsContext(
        s.scheduler(),
        s.forwarding(),
        b.fwmark != null || b.groupName != null,
        b.addrId != null ? b.addrId.port() : 0,
        b.addrId == null ? null : AddressFamily.of(b.addrId.address()),
        c.weight == null ? 1 : c.weight,
        c.inhibit,
        c.timing,
        c.virtualhost,
        c.slowStart,
        c.maxConns,
        s.protocol());
  }

  /** max_conns and proxy_protocol, which only some planes carry. */
  private void checkPlanes(VirtualServerBlock b, Service s) {
    ServerKeywords.Common c = b.common;
    if (c.maxConnsNode != null && c.maxConns > 0) {
      v.maxConnsPlane(c.maxConnsNode, s.forwarding(), s.protocol());
    }
    if (b.proxyProtocolNode != null) {
      ProxyProtocolParser.plane(b.proxyProtocolNode, v, s.forwarding(), s.protocol());
    }
  }

  private Pool pool(
      VirtualServerBlock b,
      Service s,
      DirectorSpec director,
      RealServerParser rsParser,
      RealServerParser.VsContext ctx) {
    List<RealServer> reals = realServers(b, rsParser, ctx);
    List<DnsDiscovery> discovery = new DnsBlockParser(v, rsParser).all(b.dnsNodes, ctx);
    DirectorLayout layout =
        new LayoutParser(v, shardParams)
            .layout(
                b.node,
                s.scheduler(),
                director,
                s.forwarding().method(),
                b.groupNodes,
                b.membersNode,
                b.altHeaderNode,
                reals);
    VirtualServerId id = id(b, s.protocol(), reals);
    Optional<SorryServer> sorry = sorry(b, s.forwarding(), rsParser, ctx, reals);
    return new Pool(id, reals, discovery, layout, sorry);
  }

  /** The service, quorum and hysteresis adjusted as keepalived adjusts them. */
  private VirtualServer assemble(
      VirtualServerBlock b, Service s, DirectorSpec director, Duration persistence, Pool pool) {
    ServerKeywords.Common c = b.common;
    VirtualServerId id = pool.id();
    long q = quorum(b, pool.reals());
    long h = hysteresis(b, q);
    checkGranularity(b);
    return VirtualServer.builder()
        .location(Values.loc(b.node))
        .id(id)
        .name(c.name != null ? c.name : defaultName(id))
        .scheduling(
            new Scheduling(
                s.scheduler(),
                director,
                b.hashBalance == null ? 0 : b.hashBalance,
                b.flags,
                pool.layout()))
        .forwarding(s.forwarding())
        .persistence(
            new PersistenceSettings(persistence, Optional.ofNullable(b.granularity), b.engine))
        .haSuspend(b.haSuspend)
        .omega(b.omega)
        .quorum(new Quorum(q, h, b.quorumUp, b.quorumDown))
        .sorry(new SorryPolicy(pool.sorry(), b.overflow))
        .realServers(pool.reals())
        .slowStart(c.slowStart)
        .proxy(
            new ProxySettings(
                b.proxyTimeouts,
                b.httpForwarded,
                s.tls(),
                b.proxyProtocolNode == null
                    ? ProxyProtocol.NONE
                    : new ProxyProtocol(true, ProxyProtocol.Version.NONE)))
        .accessLogs(new AccessLogs(b.accessLogs))
        .discovery(pool.discovery())
        .announce(b.announce)
        .build();
  }

  /** lb_kind's default and its fit with the scheduler and the header. */
  private Forwarding forwarding(VirtualServerBlock b, Scheduler scheduler) {
    Node written = b.common.forwardingNode;
    boolean varnish = !scheduler.isKernel();
    Forwarding forwarding = b.common.forwarding;
    if (forwarding == null) {
      forwarding = Forwarding.of(varnish ? LbKind.PROXY : LbKind.NAT);
    } else if (varnish && forwarding.method().isKernel()) {
      v.error(
          Objects.requireNonNull(written, "lb_kind was read from a node"),
          "lb_algo "
              + scheduler.keyword()
              + " is a Varnish director and "
              + "needs Fairway's data plane: lb_kind PROXY or HTTP, not "
              + forwarding.method());
    }
    if ((b.fwmark != null || b.groupName != null) && !forwarding.method().isKernel()) {
      v.error(
          written != null ? written : b.node,
          "lb_kind "
              + forwarding.method()
              + " needs 'virtual_server IP PORT' (the proxy listens on an address, not a "
              + (b.fwmark != null ? "fwmark" : "group")
              + ")");
    }
    return forwarding;
  }

  /** The protocol's default (keepalived's UDP for the kernel) and what the plane carries. */
  private Protocol protocol(VirtualServerBlock b, Forwarding forwarding) {
    boolean userspace = !forwarding.method().isKernel();
    Protocol protocol = b.protocol;
    if (protocol == null) {
      if (b.fwmark == null && !userspace) {
        protocol = Protocol.UDP;
        v.warn(b.node, "no protocol set - defaulting to UDP, as keepalived does");
      } else {
        protocol = Protocol.TCP;
      }
    } else if (b.fwmark != null) {
      v.warn(
          Objects.requireNonNull(b.protocolNode, "protocol was read from a node"),
          "protocol is ignored for a fwmark virtual_server");
      protocol = Protocol.TCP;
    }
    if (userspace && protocol != Protocol.TCP) {
      v.error(
          b.protocolNode != null ? b.protocolNode : b.node,
          "lb_kind " + forwarding.method() + " proxies TCP only, not " + protocol);
    }
    return protocol;
  }

  private void checkFlags(VirtualServerBlock b, Scheduler scheduler, Protocol protocol) {
    for (SchedulerFlag f : b.flags) {
      Node fn = Objects.requireNonNull(b.flagNodes.get(f), "every flag is read from a node");
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
  }

  private Duration persistence(VirtualServerBlock b) {
    Duration persistence = b.persistence;
    if (b.granularity != null && persistence == null) {
      persistence = VirtualServerBlock.DEFAULT_PERSISTENCE;
    }
    if (persistence == null) {
      persistence = Duration.ZERO;
    }
    if (b.addrId != null && b.addrId.port() == 0 && persistence.isZero()) {
      v.warn(
          b.node, "port 0 is only valid for persistent services - setting persistence_timeout 360");
      persistence = VirtualServerBlock.DEFAULT_PERSISTENCE;
    }
    return persistence;
  }

  /** Each real_server, without the duplicates keepalived drops and the clashes Fairway refuses. */
  private List<RealServer> realServers(
      VirtualServerBlock b, RealServerParser rsParser, RealServerParser.VsContext ctx) {
    List<RealServer> reals = new ArrayList<>();
    Map<RealServerId, RealServer> seen = new HashMap<>();
    Map<String, RealServer> names = new HashMap<>();
    Map<String, RealServer> idents = new HashMap<>();
    for (Node rn : b.rsNodes) {
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
    return reals;
  }

  /** The service's id; a fwmark's family is ip_family's, else its first real server's. */
  private VirtualServerId id(VirtualServerBlock b, Protocol protocol, List<RealServer> reals) {
    if (b.fwmark != null) {
      AddressFamily af = b.ipFamily;
      if (af == null) {
        af = reals.isEmpty() ? AddressFamily.INET : reals.get(0).id().family();
      }
      return new VirtualServerId.Fwmark(b.fwmark, af);
    }
    if (b.ipFamily != null) {
      v.warn(b.node, "ip_family only matters for fwmark virtual servers; ignored");
    }
    if (b.addrId != null) {
      return new VirtualServerId.Address(b.addrId.address(), protocol, b.addrId.port());
    }
    return new VirtualServerId.Group(
        Objects.requireNonNull(b.groupName, "a virtual_server without an address names a group"),
        protocol);
  }

  private Optional<SorryServer> sorry(
      VirtualServerBlock b,
      Forwarding forwarding,
      RealServerParser rsParser,
      RealServerParser.VsContext ctx,
      List<RealServer> reals) {
    Optional<SorryServer> sorry = Optional.empty();
    Node sn = b.sorryNode;
    if (sn != null) {
      InetAddress a = v.address(sn, 1, "address");
      Integer p = sn.argc() == 2 ? v.port(sn, 2) : Integer.valueOf(0);
      if (a != null && p != null) {
        Forwarding sf = b.sorryForwarding != null ? b.sorryForwarding : forwarding;
        RealServerId sid = new RealServerId(a, rsParser.effectivePort(sn, p, sf, ctx));
        for (RealServer rs : reals) {
          if (rs.id().equals(sid)) {
            v.error(
                sn,
                "sorry_server "
                    + sid
                    + " is also a real_server (at "
                    + rs.location()
                    + "); Fairway refuses this (keepalived issue #1370)");
          }
        }
        sorry = Optional.of(new SorryServer(Values.loc(sn), sid, sf, b.sorryInhibit));
      }
    } else if (b.sorryInhibit) {
      v.warn(b.node, "sorry_server_inhibit without sorry_server has no effect");
    }
    if (b.overflow && sn == null) {
      v.error(
          Objects.requireNonNull(b.overflowNode, "overflow_to_sorry_server was read from a node"),
          "overflow_to_sorry_server needs a sorry_server in the same "
              + "virtual_server (there is nowhere to overflow to)");
    }
    return sorry;
  }

  private long quorum(VirtualServerBlock b, List<RealServer> reals) {
    long q = b.quorum == null ? 1 : b.quorum;
    long sum = 0;
    for (RealServer rs : reals) {
      sum += (long) Math.floor(rs.weight());
    }
    if (q > sum && sum > 0) {
      v.warn(
          b.node,
          "quorum "
              + q
              + " exceeds the total weight of the real servers "
              + sum
              + "; reducing quorum to "
              + sum
              + ", as keepalived does");
      q = sum;
    }
    return q;
  }

  private long hysteresis(VirtualServerBlock b, long q) {
    long h = b.hysteresis == null ? 0 : b.hysteresis;
    if (h >= q && h > 0) {
      v.warn(
          b.node,
          "hysteresis "
              + h
              + " >= quorum "
              + q
              + "; setting hysteresis to "
              + (q - 1)
              + ", as keepalived does");
      h = q - 1;
    }
    return h;
  }

  private void checkGranularity(VirtualServerBlock b) {
    if (b.granularityNode != null && b.addrId != null && b.granularity != null) {
      int max = b.addrId.address() instanceof Inet6Address ? 128 : 32;
      if (b.granularity > max) {
        v.error(
            b.granularityNode,
            "persistence_granularity /" + b.granularity + " is longer than the address");
      }
    }
  }

  static String defaultName(VirtualServerId id) {
    if (id instanceof VirtualServerId.Address a) {
      return ModelBuilder.defaultName(a);
    } else if (id instanceof VirtualServerId.Fwmark f) {
      return "fwmark:" + f.fwmark();
    }
    return "group:" + ((VirtualServerId.Group) id).name();
  }

  static @Nullable Scheduler scheduler(Values v, Node c) {
    Optional<Scheduler> s = Scheduler.byKeyword(c.arg(1));
    if (s.isEmpty()) {
      List<String> known = Arrays.stream(Scheduler.values()).map(Scheduler::keyword).toList();
      Optional<String> sug = Keywords.suggest(c.arg(1), known);
      v.error(
          c,
          "unknown scheduler '"
              + c.arg(1)
              + "'"
              + sug.map(x -> " (did you mean '" + x + "'?)").orElse("")
              + "; known: "
              + String.join(" ", known));
      return null;
    }
    return s.get();
  }
}
