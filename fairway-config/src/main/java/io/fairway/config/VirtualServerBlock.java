package io.fairway.config;

import io.fairway.config.model.AccessLogs;
import io.fairway.config.model.Forwarding;
import io.fairway.config.model.ProxySettings;
import io.fairway.config.model.Scheduler;
import io.fairway.config.model.SchedulerFlag;
import io.fairway.config.model.TlsSettings;
import io.fairway.config.model.VirtualServerId;
import io.fairway.config.model.base.Script;
import io.fairway.table.AddressFamily;
import io.fairway.table.Protocol;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * A virtual_server block as written: the keyword table and the state its handlers fill, before
 * {@link VirtualServerParser} applies defaults and the checks that need the whole block.
 */
final class VirtualServerBlock {
  static final long MAX_PERSISTENCE_SECONDS = 31L * 24 * 3600;
  static final Duration DEFAULT_PERSISTENCE = Duration.ofMinutes(6);

  final Values v;
  final Node node;

  /** Exactly one of these three names the service (from the block's header line). */
  final VirtualServerId.@Nullable Address addrId;

  final @Nullable Long fwmark;
  final @Nullable String groupName;

  final ServerKeywords.Common common;
  @Nullable Scheduler scheduler;
  @Nullable Duration persistence;
  @Nullable Integer granularity;
  @Nullable Node granularityNode;
  Optional<String> engine = Optional.empty();
  @Nullable Protocol protocol;
  @Nullable Node protocolNode;
  final Set<SchedulerFlag> flags = EnumSet.noneOf(SchedulerFlag.class);
  final Map<SchedulerFlag, Node> flagNodes = new HashMap<>();
  @Nullable AddressFamily ipFamily;
  boolean omega;
  @Nullable Long quorum;
  @Nullable Long hysteresis;
  Optional<Script> quorumUp = Optional.empty();
  Optional<Script> quorumDown = Optional.empty();
  @Nullable Node sorryNode;
  boolean sorryInhibit;
  @Nullable Forwarding sorryForwarding;
  boolean overflow;
  @Nullable Node overflowNode;
  boolean announce;
  boolean haSuspend;
  final Map<String, Node> directorBlocks = new LinkedHashMap<>();
  @Nullable Integer hashBalance;
  @Nullable Node hashBalanceNode;
  ProxySettings.Timeouts proxyTimeouts = ProxySettings.Timeouts.NONE;
  @Nullable Node proxyProtocolNode;
  boolean httpForwarded;
  final List<AccessLogs.Entry> accessLogs = new ArrayList<>();
  @Nullable Node tlsNode;
  TlsSettings tls = TlsSettings.NONE;
  @Nullable Node alpnNode;
  List<String> alpn = List.of();
  final List<Node> rsNodes = new ArrayList<>();
  final List<Node> dnsNodes = new ArrayList<>();
  final List<Node> groupNodes = new ArrayList<>();
  @Nullable Node membersNode;
  @Nullable Node altHeaderNode;

  VirtualServerBlock(
      Values v,
      Node node,
      VirtualServerId.@Nullable Address addrId,
      @Nullable Long fwmark,
      @Nullable String groupName) {
    this.v = v;
    this.node = node;
    this.addrId = addrId;
    this.fwmark = fwmark;
    this.groupName = groupName;
    this.common = new ServerKeywords.Common(v, null, null, null, false, Duration.ZERO, 0);
  }

  static final KeywordTable<VirtualServerBlock> TABLE = table();

  private static KeywordTable<VirtualServerBlock> table() {
    KeywordTable<VirtualServerBlock> t = new KeywordTable<>();
    t.include(ServerKeywords.TABLE, b -> b.common);
    t.on("lb_kind", (b, n) -> ServerKeywords.forwarding(b.common, n));
    t.on(List.of("lb_algo", "lvs_sched"), VirtualServerBlock::scheduler);
    t.on("persistence_timeout", VirtualServerBlock::persistence);
    t.on(
        "persistence_granularity",
        (b, n) -> {
          if (b.v.args(n, 1, 1)) {
            b.granularity = granularity(b.v, n);
            b.granularityNode = n;
          }
        });
    t.on(
        "persistence_engine",
        (b, n) -> {
          if (b.v.args(n, 1, 1)) {
            b.engine = Optional.of(n.arg(1));
          }
        });
    t.on("protocol", VirtualServerBlock::protocol);
    t.on(
        List.of(
            "ops",
            "flag-1",
            "flag-2",
            "flag-3",
            "sh-port",
            "sh-fallback",
            "mh-port",
            "mh-fallback"),
        VirtualServerBlock::flag);
    t.on("hashed", (b, n) -> b.v.warn(n, "'hashed' has no effect (keepalived ignores it too)"));
    t.on(
        "ip_family",
        (b, n) -> {
          if (b.v.args(n, 1, 1)) {
            b.ipFamily = b.v.family(n, n.arg(1));
          }
        });
    t.on("omega", (b, n) -> bool(b, n, x -> b.omega = x));
    quorum(t);
    sorry(t);
    t.on("announce", (b, n) -> b.announce = new AnnounceParser(b.v).virtualServer(n, b.addrId));
    t.on("ha_suspend", VirtualServerBlock::haSuspend);
    t.on("quorum_max", (b, n) -> ServerKeywords.unsupported(b.v, n));
    t.on(List.of("shard", "fallback", "hash"), VirtualServerBlock::directorBlock);
    t.on("hash_balance_factor", VirtualServerBlock::hashBalance);
    proxy(t);
    children(t);
    for (String k : List.of("lthreshold", "uthreshold")) {
      t.unlisted(k, (b, n) -> b.v.error(n, "'" + k + "' belongs in a real_server block"));
    }
    return t;
  }

  private static void bool(VirtualServerBlock b, Node n, Consumer<Boolean> set) {
    Boolean x = b.v.args(n, 0, 1) ? b.v.bool(n, 1) : null;
    if (x != null) {
      set.accept(x);
    }
  }

  private static void quorum(KeywordTable<VirtualServerBlock> t) {
    t.on(
        "quorum",
        (b, n) -> {
          if (b.v.args(n, 1, 1)) {
            b.quorum = b.v.number(n, 1, 1, Values.UINT32_MAX, "quorum");
          }
        });
    t.on(
        "hysteresis",
        (b, n) -> {
          if (b.v.args(n, 1, 1)) {
            b.hysteresis = b.v.number(n, 1, 0, Values.UINT32_MAX, "hysteresis");
          }
        });
    t.on("quorum_up", (b, n) -> b.quorumUp = Optional.ofNullable(b.v.script(n)));
    t.on("quorum_down", (b, n) -> b.quorumDown = Optional.ofNullable(b.v.script(n)));
  }

  private static void sorry(KeywordTable<VirtualServerBlock> t) {
    t.on(
        "sorry_server",
        (b, n) -> {
          if (b.v.args(n, 1, 2)) {
            b.sorryNode = n;
          }
        });
    t.on("sorry_server_inhibit", (b, n) -> bool(b, n, x -> b.sorryInhibit = x));
    t.on("sorry_server_lvs_method", (b, n) -> b.sorryForwarding = ForwardingParser.parse(n, b.v));
    t.on(
        "overflow_to_sorry_server",
        (b, n) ->
            bool(
                b,
                n,
                x -> {
                  b.overflow = x;
                  b.overflowNode = n;
                }));
  }

  private static void proxy(KeywordTable<VirtualServerBlock> t) {
    t.on(
        "proxy_timeouts",
        (b, n) -> {
          if (b.v.block(n)) {
            if (n.argc() > 0) {
              b.v.error(n, "'proxy_timeouts' takes no arguments before its { } block");
            }
            b.proxyTimeouts = ProxySettingsParser.timeouts(n, b.v);
          }
        });
    t.on(
        "proxy_protocol",
        (b, n) -> {
          if (ProxyProtocolParser.accept(n, b.v) != null) {
            b.proxyProtocolNode = n;
          }
        });
    t.on("http_forwarded", (b, n) -> bool(b, n, x -> b.httpForwarded = x));
    t.on(
        "access_log",
        (b, n) -> {
          AccessLogs.Entry a = AccessLogParser.parse(n, b.v, b.accessLogs);
          if (a != null) {
            b.accessLogs.add(a);
          }
        });
    t.on(
        "tls",
        (b, n) -> {
          if (b.v.block(n)) {
            b.tlsNode = n;
            b.tls = TlsParser.parse(n, b.v);
          }
        });
    // Outside a tls block: h2c beside HTTP/1.1 on the plain listener (checked in build).
    t.on(
        "alpn",
        (b, n) -> {
          b.alpnNode = n;
          b.alpn = TlsParser.alpn(n, b.v);
        });
  }

  /** Blocks and lines read once the whole virtual_server is known. */
  private static void children(KeywordTable<VirtualServerBlock> t) {
    t.on("real_server", (b, n) -> b.rsNodes.add(n));
    t.on("real_server_dns", (b, n) -> b.dnsNodes.add(n));
    t.on("director", (b, n) -> b.groupNodes.add(n));
    t.on(
        "members",
        (b, n) -> {
          if (b.membersNode != null) {
            b.v.error(
                n,
                "a second 'members' line (the first is at line " + b.membersNode.line.line() + ")");
          }
          b.membersNode = n;
        });
    t.on("alt_header", (b, n) -> b.altHeaderNode = n);
  }

  private static void scheduler(VirtualServerBlock b, Node n) {
    if (b.v.args(n, 1, 1)) {
      b.scheduler = VirtualServerParser.scheduler(b.v, n);
    }
  }

  private static void persistence(VirtualServerBlock b, Node n) {
    if (!b.v.args(n, 0, 1)) {
      return;
    }
    if (n.argc() == 0) {
      b.persistence = DEFAULT_PERSISTENCE;
    } else {
      Long s = b.v.number(n, 1, 0, MAX_PERSISTENCE_SECONDS, "seconds");
      if (s != null) {
        b.persistence = Duration.ofSeconds(s);
      }
    }
  }

  private static void protocol(VirtualServerBlock b, Node n) {
    if (b.v.args(n, 1, 1)) {
      try {
        b.protocol = Protocol.valueOf(n.arg(1).toUpperCase(Locale.ROOT));
        b.protocolNode = n;
      } catch (IllegalArgumentException e) {
        b.v.error(n, "protocol: '" + n.arg(1) + "' is not TCP, UDP or SCTP");
      }
    }
  }

  private static void flag(VirtualServerBlock b, Node n) {
    if (b.v.args(n, 0, 0)) {
      SchedulerFlag f = SchedulerFlag.byKeyword(n.keyword()).orElseThrow();
      b.flags.add(f);
      b.flagNodes.put(f, n);
    }
  }

  private static void haSuspend(VirtualServerBlock b, Node n) {
    if (b.v.args(n, 0, 0)) {
      if (b.fwmark != null || b.groupName != null) {
        // There is no address whose presence could be watched (keepalived refuses it too).
        b.v.warn(n, "ha_suspend needs a virtual server address; ignored for fwmark and group");
      } else {
        b.haSuspend = true;
      }
    }
  }

  private static void directorBlock(VirtualServerBlock b, Node n) {
    if (b.v.block(n)) {
      if (n.argc() > 0) {
        b.v.error(n, "'" + n.keyword() + "' takes no arguments before its { } block");
      }
      b.directorBlocks.put(n.keyword(), n);
    }
  }

  private static void hashBalance(VirtualServerBlock b, Node n) {
    if (!b.v.args(n, 1, 1)) {
      return;
    }
    Long f = b.v.number(n, 1, 0, 100_000, "factor");
    if (f != null && f != 0 && f <= 100) {
      b.v.error(
          n, "hash_balance_factor must be 0 (off) or above 100 (percent of the " + "mean load)");
    } else if (f != null) {
      b.hashBalance = f.intValue();
      b.hashBalanceNode = n;
    }
  }

  private static @Nullable Integer granularity(Values v, Node c) {
    String s = c.arg(1);
    InetAddress mask = Values.address(s);
    if (mask instanceof Inet4Address) {
      byte[] b = mask.getAddress();
      int m = ((b[0] & 0xff) << 24) | ((b[1] & 0xff) << 16) | ((b[2] & 0xff) << 8) | (b[3] & 0xff);
      int bits = Integer.bitCount(m);
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
