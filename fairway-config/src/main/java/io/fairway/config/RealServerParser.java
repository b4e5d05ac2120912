package io.fairway.config;

import io.fairway.config.model.AddressFamily;
import io.fairway.config.model.Addresses;
import io.fairway.config.model.Checker;
import io.fairway.config.model.Forwarding;
import io.fairway.config.model.ForwardingMethod;
import io.fairway.config.model.Protocol;
import io.fairway.config.model.RealServer;
import io.fairway.config.model.RealServerId;
import io.fairway.config.model.Scheduler;
import io.fairway.config.model.Script;
import io.fairway.config.model.TrackFile;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

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
      AddressFamily family,
      double weight,
      boolean inhibit,
      InheritedTiming timing,
      String virtualhost,
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
    ForwardingMethod m = f.method();
    if (m == ForwardingMethod.DR || m == ForwardingMethod.TUN) {
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

  RealServer realServer(Node n, VsContext vs) {
    if (n.argc() < 1 || n.argc() > 2) {
      v.error(n, "expected 'real_server IP [PORT]'");
      return null;
    }
    InetAddress a = v.address(n, 1, "address");
    Integer written = n.argc() == 2 ? v.port(n, 2) : Integer.valueOf(0);
    if (a == null || written == null || !v.block(n)) {
      return null;
    }
    String name = null;
    String ident = null;
    Node identNode = null;
    double weight = vs.weight();
    Forwarding forwarding = vs.forwarding();
    Node forwardingNode = null;
    long upper = 0;
    long lower = 0;
    Node thresholdNode = null;
    boolean inhibit = vs.inhibit();
    Duration slowStart = vs.slowStart();
    int maxConns = vs.maxConns();
    Node maxConnsNode = null;
    io.fairway.config.model.ProxyProtocol.Version sendProxy = null;
    Node sendProxyNode = null;
    Optional<io.fairway.config.model.BackendTls> tls = Optional.empty();
    Node tlsNode = null;
    Optional<Script> up = Optional.empty();
    Optional<Script> down = Optional.empty();
    InheritedTiming timing = new InheritedTiming();
    String virtualhost = null;
    List<Node> checkerNodes = new ArrayList<>();
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
        case "ident":
          if (v.args(c, 1, 1)) {
            ident = c.arg(1);
            identNode = c;
          }
          break;
        case "weight":
          if (v.args(c, 1, 1)) {
            Double w = v.decimal(c, 1, 0, Values.INT32_MAX, "weight");
            if (w != null) {
              if (vs.scheduler() != null && vs.scheduler().isKernel() && w != Math.rint(w)) {
                v.error(
                    c,
                    "weight must be an integer for lb_algo "
                        + vs.scheduler().keyword()
                        + " (decimals are for the Varnish directors)");
              }
              weight = w;
            }
          }
          break;
        case "lvs_method":
          {
            Forwarding f = ForwardingParser.parse(c, v);
            if (f != null) {
              forwarding = f;
              forwardingNode = c;
            }
            break;
          }
        case "lb_kind":
          v.error(c, "lb_kind is not valid in a real_server (keepalived uses lvs_method there)");
          break;
        case "uthreshold":
          if (v.args(c, 1, 1)) {
            Long u = v.number(c, 1, 0, Values.UINT32_MAX, "uthreshold");
            if (u != null) {
              upper = u;
              thresholdNode = c;
            }
          }
          break;
        case "lthreshold":
          if (v.args(c, 1, 1)) {
            Long l = v.number(c, 1, 0, Values.UINT32_MAX, "lthreshold");
            if (l != null) {
              lower = l;
              thresholdNode = c;
            }
          }
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
        case "send_proxy":
          sendProxy = ProxyProtocolParser.send(c, v);
          sendProxyNode = sendProxy == null ? null : c;
          break;
        case "tls":
          tls = BackendTlsParser.parse(c, v);
          tlsNode = c;
          break;
        case "inhibit_on_failure":
          {
            Boolean b = v.args(c, 0, 1) ? v.bool(c, 1) : null;
            if (b != null) {
              inhibit = b;
            }
            break;
          }
        case "notify_up":
          up = Optional.ofNullable(v.script(c));
          break;
        case "notify_down":
          down = Optional.ofNullable(v.script(c));
          break;
        case "virtualhost":
          if (v.args(c, 1, 1)) {
            virtualhost = c.arg(1);
          }
          break;
        case "smtp_alert":
        case "snmp_name":
          v.warn(c, "'" + k + "' is not supported by Fairway yet; ignored");
          break;
        default:
          if (CheckerParser.CHECKERS.contains(k)) {
            checkerNodes.add(c);
          } else {
            v.unknown(c, ModelBuilder.RS, "real_server");
          }
      }
    }
    if (forwardingNode != null
        && vs.forwarding() != null
        && forwarding.method().isKernel() != vs.forwarding().method().isKernel()) {
      v.error(
          forwardingNode,
          "a real_server cannot use "
              + forwarding.method()
              + " under a virtual_server with lb_kind "
              + vs.forwarding().method());
    }
    if (lower > upper) {
      v.error(
          thresholdNode,
          upper == 0
              ? "lthreshold " + lower + " without uthreshold (the kernel rejects it)"
              : "lthreshold " + lower + " is above uthreshold " + upper);
    }
    if (vs.family() != null
        && AddressFamily.of(a) != vs.family()
        && forwarding.method() != ForwardingMethod.TUN) {
      v.error(
          n,
          "real_server "
              + Addresses.format(a)
              + " is "
              + AddressFamily.of(a).keyword()
              + " but the virtual_server is "
              + vs.family().keyword()
              + " (only tunnelled real servers may differ)");
    }
    int port = effectivePort(n, written, forwarding, vs);
    int checkPort = forwarding.method().isKernel() ? checkPort(written, vs) : port;
    if (!forwarding.method().isKernel() && port == 0) {
      v.error(n, "real_server needs a port with lb_kind " + forwarding.method());
    }
    RealServerId id = new RealServerId(a, port);
    if (maxConnsNode != null && maxConns > 0) {
      v.maxConnsPlane(maxConnsNode, forwarding, vs.protocol());
    }
    if (sendProxyNode != null) {
      ProxyProtocolParser.plane(sendProxyNode, v, forwarding, vs.protocol());
    }
    if (tlsNode != null) {
      BackendTlsParser.checkPlane(tlsNode, forwarding.method(), v);
      if (sendProxyNode != null
          && sendProxy != null
          && sendProxy != io.fairway.config.model.ProxyProtocol.Version.NONE) {
        // The header would have to go in clear before the handshake; not built yet.
        v.error(tlsNode, "tls with send_proxy on the same real_server is not supported yet");
      }
    }
    String rsName = name != null ? name : id.toString();
    if (identNode != null && vs.scheduler() != Scheduler.SHARD) {
      v.warn(identNode, "ident is only used by lb_algo shard");
    }
    InheritedTiming effective = timing.over(vs.timing());
    String vhost = virtualhost != null ? virtualhost : vs.virtualhost();
    List<Checker> checkers = new ArrayList<>();
    CheckerParser checkerParser = new CheckerParser(v, trackFiles, logAllFailures);
    for (Node c : checkerNodes) {
      checkers.addAll(checkerParser.checker(c, a, checkPort, effective, vhost));
    }
    return new RealServer(
        Values.loc(n),
        id,
        rsName,
        ident != null ? ident : rsName,
        weight,
        forwarding,
        upper,
        lower,
        inhibit,
        up,
        down,
        checkers,
        checkPort,
        slowStart,
        maxConns,
        io.fairway.config.model.ProxyProtocol.sending(sendProxy),
        tls);
  }
}
