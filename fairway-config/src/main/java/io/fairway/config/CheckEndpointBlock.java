package io.fairway.config;

import io.fairway.config.model.Endpoint;
import io.fairway.config.model.base.Addresses;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Where a network checker connects from and to, as written: the keyword table every network
 * checker's table includes, and that an SMTP_CHECK {@code host} block is read with, so the six
 * keywords mean the same in each. The endpoint is resolved against the real server only when the
 * checker is built, since connect_ip and connect_port default to it.
 */
final class CheckEndpointBlock {
  /** Linux's IFNAMSIZ less the terminating NUL; keepalived refuses longer names too. */
  static final int MAX_IFNAME = 15;

  final Values v;
  @Nullable InetAddress ip;
  @Nullable Integer port;
  @Nullable InetAddress bindTo;
  @Nullable Node bindToNode;
  int bindPort;
  @Nullable String bindIf;
  long fwmark;

  CheckEndpointBlock(Values v) {
    this.v = v;
  }

  /** A copy to refine: an SMTP_CHECK host starts from its checker's endpoint. */
  CheckEndpointBlock copy() {
    CheckEndpointBlock e = new CheckEndpointBlock(v);
    e.ip = ip;
    e.port = port;
    e.bindTo = bindTo;
    e.bindToNode = bindToNode;
    e.bindPort = bindPort;
    e.bindIf = bindIf;
    e.fwmark = fwmark;
    return e;
  }

  static final KeywordTable<CheckEndpointBlock> TABLE = table();

  /** The endpoint keywords, for suggestions. */
  static final Set<String> KEYWORDS = TABLE.known();

  private static KeywordTable<CheckEndpointBlock> table() {
    KeywordTable<CheckEndpointBlock> t = new KeywordTable<>();
    t.on(
        "connect_ip",
        (e, c) -> {
          if (e.v.args(c, 1, 1)) {
            e.ip = e.v.address(c, 1, "address");
          }
        });
    t.on(
        "connect_port",
        (e, c) -> {
          if (e.v.args(c, 1, 1)) {
            e.port = e.v.port(c, 1);
          }
        });
    t.on(
        "bindto",
        (e, c) -> {
          if (e.v.args(c, 1, 1)) {
            e.bindTo = e.v.address(c, 1, "address");
            e.bindToNode = c;
          }
        });
    t.on(
        "bind_port",
        (e, c) -> {
          if (e.v.args(c, 1, 1)) {
            // keepalived's range: 0 would mean "any port", which is what leaving bind_port out
            // says.
            Long p = e.v.number(c, 1, 1, 65535, "bind_port");
            e.bindPort = p == null ? 0 : p.intValue();
          }
        });
    t.on("bind_if", CheckEndpointBlock::bindIf);
    t.on(
        "fwmark",
        (e, c) -> {
          if (e.v.args(c, 1, 1)) {
            Long m = e.v.number(c, 1, 0, Values.UINT32_MAX, "fwmark");
            e.fwmark = m == null ? 0 : m;
          }
        });
    return t;
  }

  private static void bindIf(CheckEndpointBlock e, Node c) {
    if (!e.v.args(c, 1, 1)) {
      return;
    }
    String name = c.arg(1);
    if (name.isEmpty() || name.length() > MAX_IFNAME || name.contains("/")) {
      e.v.error(
          c,
          "bind_if '"
              + name
              + "' is not an interface name (at most "
              + MAX_IFNAME
              + " characters, no '/')");
    } else {
      e.bindIf = name;
      if (!interfaceExists(name)) {
        // A warning, not an error: a VLAN or tunnel interface may come up after we start; until
        // it does, every check on it fails with "No such device".
        e.v.warn(c, "bind_if " + name + ": no such interface on this host now");
      }
    }
  }

  /**
   * The endpoint of checker (or SMTP host) {@code n}: what was written, else the real server's
   * address and port.
   */
  Endpoint resolve(Node n, InetAddress rsAddr, int rsPort, boolean needPort) {
    int port = this.port != null ? this.port : rsPort;
    if (needPort && port == 0) {
      v.error(n, n.keyword() + " has no port to check: the real_server has none, set connect_port");
    }
    InetAddress target = ip != null ? ip : rsAddr;
    if (bindTo != null
        && target != null
        && (bindTo instanceof Inet6Address) != (target instanceof Inet6Address)) {
      // keepalived reports this and drops the bindto; a check from another source than configured
      // could pass where traffic fails, so we refuse it.
      v.error(
          Objects.requireNonNull(bindToNode, "bindto was read from a node"),
          "bindto "
              + Addresses.format(bindTo)
              + " is not of the address family of "
              + "the check's target "
              + Addresses.format(target));
    }
    if (target instanceof Inet6Address t6
        && t6.isLinkLocalAddress()
        && t6.getScopeId() == 0
        && bindIf == null) {
      v.error(
          n, n.keyword() + ": link-local target " + Addresses.format(target) + " needs bind_if");
    }
    return new Endpoint(
        target, port, Optional.ofNullable(bindTo), bindPort, Optional.ofNullable(bindIf), fwmark);
  }

  private static boolean interfaceExists(String name) {
    try {
      return NetworkInterface.getByName(name) != null;
    } catch (SocketException | RuntimeException e) {
      return true; // cannot tell: say nothing rather than warn wrongly
    }
  }
}
