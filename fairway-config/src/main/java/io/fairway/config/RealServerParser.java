package io.fairway.config;

import io.fairway.config.model.BackendSettings;
import io.fairway.config.model.Forwarding;
import io.fairway.config.model.HealthCheck;
import io.fairway.config.model.LbKind;
import io.fairway.config.model.NotifyScripts;
import io.fairway.config.model.ProxyProtocol;
import io.fairway.config.model.RealServer;
import io.fairway.config.model.RealServerId;
import io.fairway.config.model.Scheduler;
import io.fairway.config.model.Thresholds;
import io.fairway.config.model.TrackFile;
import io.fairway.config.model.base.Addresses;
import io.fairway.config.model.base.Script;
import io.fairway.table.AddressFamily;
import io.fairway.table.Protocol;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.LongConsumer;
import org.jspecify.annotations.Nullable;

/**
 * A {@code real_server} block: its own keywords, what it inherits from the virtual server, and
 * keepalived's port rules (NAT takes the service port, DR/TUN are forced to it).
 */
final class RealServerParser {
  /** What a virtual_server passes down to its real servers and checkers. */
  record VsContext(
      Scheduler scheduler,
      Forwarding forwarding,
      boolean fwmarkOrGroup,
      int port,
      @Nullable AddressFamily family,
      double weight,
      boolean inhibit,
      InheritedTiming timing,
      @Nullable String virtualhost,
      Duration slowStart,
      int maxConns,
      Protocol protocol) {}

  private final Values v;
  private final Map<String, TrackFile> trackFiles;
  private final boolean logAllFailures;

  RealServerParser(Values v, Map<String, TrackFile> trackFiles, boolean logAllFailures) {
    this.v = v;
    this.trackFiles = trackFiles;
    this.logAllFailures = logAllFailures;
  }

  /**
   * keepalived's real server port rules: NAT without a port takes the service's; DR and TUN cannot
   * change the port, so it is forced to the service's (and cleared for fwmark/group services).
   * Fairway's proxies follow the NAT rule.
   */
  int effectivePort(Node n, int written, Forwarding f, VsContext vs) {
    LbKind m = f.method();
    if (m == LbKind.DR || m == LbKind.TUN) {
      if (vs.fwmarkOrGroup()) {
        if (written != 0) {
          v.warn(
              n,
              m
                  + " real server under a fwmark/group virtual_server: IPVS gives it each"
                  + " service's own port (none for a fwmark); its checkers check port "
                  + written
                  + ", as keepalived's do");
        }
        return 0;
      }
      if (written != 0 && written != vs.port()) {
        v.warn(
            n,
            m
                + " real server port "
                + written
                + " differs from the virtual server port "
                + vs.port()
                + "; IPVS gets "
                + vs.port()
                + " and the checkers check "
                + written
                + ", as keepalived does");
      }
      return vs.port();
    }
    return written == 0 ? vs.port() : written;
  }

  /**
   * The port keepalived's checkers connect to (without {@code connect_port}): the port written on
   * the real_server, else the virtual server's. keepalived copies the real server's address into
   * each checker while parsing, before check_data.c forces DR/TUN ports to the service's, so a DR
   * real server written with another port is checked there.
   */
  static int checkPort(int written, VsContext vs) {
    return written != 0 ? written : vs.port();
  }

  /** A real_server block as written: the state its keyword table's handlers fill. */
  static final class Block {
    final Values v;

    /** The keywords shared with virtual_server, started from the virtual server's values. */
    final ServerKeywords.Common common;

    @Nullable String ident;
    @Nullable Node identNode;
    long upper;
    long lower;
    @Nullable Node thresholdNode;
    ProxyProtocol.@Nullable Version sendProxy;
    @Nullable Node sendProxyNode;
    Optional<io.fairway.config.model.BackendTls> tls = Optional.empty();
    @Nullable Node tlsNode;
    @Nullable Node http2Node;
    Optional<Script> up = Optional.empty();
    Optional<Script> down = Optional.empty();
    final List<Node> checkerNodes = new ArrayList<>();

    Block(Values v, VsContext vs) {
      this.v = v;
      this.common =
          new ServerKeywords.Common(
              v,
              vs.scheduler(),
              vs.weight(),
              vs.forwarding(),
              vs.inhibit(),
              vs.slowStart(),
              vs.maxConns());
    }
  }

  static final KeywordTable<Block> TABLE = table();

  private static KeywordTable<Block> table() {
    KeywordTable<Block> t = new KeywordTable<>();
    t.include(ServerKeywords.TABLE, b -> b.common);
    t.on(
        "ident",
        (b, n) -> {
          if (b.v.args(n, 1, 1)) {
            b.ident = n.arg(1);
            b.identNode = n;
          }
        });
    t.on("uthreshold", (b, n) -> threshold(b, n, u -> b.upper = u));
    t.on("lthreshold", (b, n) -> threshold(b, n, l -> b.lower = l));
    t.on(
        "send_proxy",
        (b, n) -> {
          b.sendProxy = ProxyProtocolParser.send(n, b.v);
          b.sendProxyNode = b.sendProxy == null ? null : n;
        });
    t.on(
        "tls",
        (b, n) -> {
          b.tls = BackendTlsParser.parse(n, b.v);
          b.tlsNode = n;
        });
    t.on(
        "http2",
        (b, n) -> {
          if (b.v.args(n, 0, 0)) {
            b.http2Node = n;
          }
        });
    t.on("notify_up", (b, n) -> b.up = Optional.ofNullable(b.v.script(n)));
    t.on("notify_down", (b, n) -> b.down = Optional.ofNullable(b.v.script(n)));
    // Checkers are read once the whole real_server is known: they inherit its timing and host.
    t.on(List.copyOf(CheckerParser.CHECKERS), (b, n) -> b.checkerNodes.add(n));
    t.unlisted(
        "lb_kind",
        (b, n) ->
            b.v.error(
                n, "lb_kind is not valid in a real_server (keepalived uses lvs_method there)"));
    return t;
  }

  private static void threshold(Block b, Node n, LongConsumer set) {
    if (b.v.args(n, 1, 1)) {
      Long x = b.v.number(n, 1, 0, Values.UINT32_MAX, n.keyword());
      if (x != null) {
        set.accept(x);
        b.thresholdNode = n;
      }
    }
  }

  @Nullable RealServer realServer(Node n, VsContext vs) {
    if (n.argc() < 1 || n.argc() > 2) {
      v.error(n, "expected 'real_server IP [PORT]'");
      return null;
    }
    InetAddress a = v.address(n, 1, "address");
    Integer written = n.argc() == 2 ? v.port(n, 2) : Integer.valueOf(0);
    if (a == null || written == null || !v.block(n)) {
      return null;
    }
    Block b = new Block(v, vs);
    for (Node c : n.block()) {
      if (!TABLE.dispatch(b, c)) {
        v.unknown(c, TABLE.known(), "real_server");
      }
    }
    check(n, a, b, vs);
    return build(n, a, written, b, vs);
  }

  /** A real server's block starts from its virtual server's forwarding, so it always has one. */
  private static Forwarding forwarding(ServerKeywords.Common c) {
    return Objects.requireNonNull(c.forwarding, "a real server inherits its forwarding");
  }

  /** The checks that need the whole block and its virtual server. */
  private void check(Node n, InetAddress a, Block b, VsContext vs) {
    Forwarding forwarding = forwarding(b.common);
    if (b.common.forwardingNode != null
        && vs.forwarding() != null
        && forwarding.method().isKernel() != vs.forwarding().method().isKernel()) {
      v.error(
          b.common.forwardingNode,
          "a real_server cannot use "
              + forwarding.method()
              + " under a virtual_server with lb_kind "
              + vs.forwarding().method());
    }
    if (b.lower > b.upper) {
      v.error(
          Objects.requireNonNull(b.thresholdNode, "thresholds were read from a node"),
          b.upper == 0
              ? "lthreshold " + b.lower + " without uthreshold (the kernel rejects it)"
              : "lthreshold " + b.lower + " is above uthreshold " + b.upper);
    }
    if (vs.family() != null
        && AddressFamily.of(a) != vs.family()
        && forwarding.method() != LbKind.TUN) {
      v.error(
          n,
          "real_server "
              + Addresses.format(a)
              + " is "
              + Addresses.keyword(AddressFamily.of(a))
              + " but the virtual_server is "
              + Addresses.keyword(vs.family())
              + " (only tunnelled real servers may differ)");
    }
  }

  private RealServer build(Node n, InetAddress a, int written, Block b, VsContext vs) {
    ServerKeywords.Common c = b.common;
    Forwarding forwarding = forwarding(c);
    int port = effectivePort(n, written, forwarding, vs);
    int checkPort = forwarding.method().isKernel() ? checkPort(written, vs) : port;
    if (!forwarding.method().isKernel() && port == 0) {
      v.error(n, "real_server needs a port with lb_kind " + forwarding.method());
    }
    RealServerId id = new RealServerId(a, port);
    if (c.maxConnsNode != null && c.maxConns > 0) {
      v.maxConnsPlane(c.maxConnsNode, forwarding, vs.protocol());
    }
    if (b.sendProxyNode != null) {
      ProxyProtocolParser.plane(b.sendProxyNode, v, forwarding, vs.protocol());
    }
    if (b.tlsNode != null) {
      BackendTlsParser.checkPlane(b.tlsNode, forwarding.method(), v);
    }
    if (b.http2Node != null) {
      http2Plane(b, forwarding.method());
    }
    String rsName = c.name != null ? c.name : id.toString();
    if (b.identNode != null && vs.scheduler() != Scheduler.SHARD) {
      v.warn(b.identNode, "ident is only used by lb_algo shard");
    }
    InheritedTiming effective = c.timing.over(vs.timing());
    String vhost = c.virtualhost != null ? c.virtualhost : vs.virtualhost();
    List<HealthCheck> checkers = new ArrayList<>();
    CheckerParser checkerParser = new CheckerParser(v, trackFiles, logAllFailures);
    for (Node cn : b.checkerNodes) {
      checkers.addAll(checkerParser.checker(cn, a, checkPort, effective, vhost));
    }
    return RealServer.builder()
        .location(Values.loc(n))
        .id(id)
        .name(rsName)
        .ident(b.ident != null ? b.ident : rsName)
        .weight(Objects.requireNonNull(c.weight, "a real server inherits its weight"))
        .forwarding(forwarding)
        .thresholds(new Thresholds(b.upper, b.lower))
        .inhibitOnFailure(c.inhibit)
        .notifyScripts(new NotifyScripts(b.up, b.down))
        .checkers(checkers)
        .checkPort(checkPort)
        .slowStart(c.slowStart)
        .backend(
            new BackendSettings(
                c.maxConns, ProxyProtocol.sending(b.sendProxy), b.tls, b.http2Node != null))
        .build();
  }

  /**
   * HTTP/2 to a server is the HTTP proxy's (it maps requests, not bytes), and one connection
   * carries many clients' requests, which one PROXY header at its start cannot name.
   */
  private void http2Plane(Block b, LbKind m) {
    Node http2Node = Objects.requireNonNull(b.http2Node, "called when http2 was written");
    if (m != LbKind.HTTP) {
      v.error(http2Node, "http2 needs lb_kind HTTP (the userspace HTTP proxy), not " + m);
    } else if (b.sendProxyNode != null) {
      v.error(
          http2Node,
          "http2 cannot be combined with send_proxy (one HTTP/2 connection carries many clients)");
    }
  }
}
