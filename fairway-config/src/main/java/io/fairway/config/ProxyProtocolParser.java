package io.fairway.config;

import io.fairway.config.model.Forwarding;
import io.fairway.config.model.ProxyProtocol;
import io.fairway.table.Protocol;
import org.jspecify.annotations.Nullable;

/**
 * The PROXY protocol keywords (Fairway extensions): {@code proxy_protocol accept} in a {@code
 * virtual_server}, {@code send_proxy v1|v2} in a {@code real_server}. Only the userspace data plane
 * speaks the protocol, and only over TCP; elsewhere the keyword is kept (and written back) but gets
 * a warning at its line, as {@code max_conns} does.
 */
final class ProxyProtocolParser {
  private ProxyProtocolParser() {}

  /** {@code proxy_protocol accept}: true, or null after an error at its line. */
  static @Nullable Boolean accept(Node n, Values v) {
    if (!v.args(n, 1, 1)) {
      return null;
    }
    if (!n.arg(1).equals("accept")) {
      v.error(n, "proxy_protocol: expected 'accept', got '" + n.arg(1) + "'");
      return null;
    }
    return true;
  }

  /** {@code send_proxy v1|v2}: the version, or null after an error at its line. */
  static ProxyProtocol.@Nullable Version send(Node n, Values v) {
    if (!v.args(n, 1, 1)) {
      return null;
    }
    return switch (n.arg(1)) {
      case "v1" -> ProxyProtocol.Version.V1;
      case "v2" -> ProxyProtocol.Version.V2;
      default -> {
        v.error(n, "send_proxy: expected v1 or v2, got '" + n.arg(1) + "'");
        yield null;
      }
    };
  }

  /** A warning where the keyword at {@code n} has no effect: UDP, or the kernel's IPVS. */
  static void plane(Node n, Values v, Forwarding f, Protocol p) {
    if (p == Protocol.UDP) {
      v.warn(n, n.keyword() + " has no effect on a UDP service (the PROXY protocol is for TCP)");
    } else if (f.method().isKernel()) {
      v.warn(
          n,
          n.keyword()
              + " is honoured by the userspace data plane only (lb_kind PROXY or HTTP, or"
              + " --userspace); the kernel's IPVS forwards packets and cannot add or read a"
              + " PROXY header");
    }
  }
}
