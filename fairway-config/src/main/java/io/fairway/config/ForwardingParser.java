package io.fairway.config;

import io.fairway.config.model.Forwarding;
import io.fairway.config.model.ForwardingMethod;
import java.util.List;
import java.util.Optional;

/** {@code lb_kind}, {@code lvs_method} and {@code sorry_server_lvs_method} with tunnel options. */
final class ForwardingParser {
  private ForwardingParser() {}

  /** {@code lb_kind NAT|DR|TUN [type ipip|gue|gre] [port N] [nocsum|csum|remcsum]|PROXY|HTTP}. */
  static Forwarding parse(Node c, Values v) {
    if (c.hasBlock() || c.argc() < 1) {
      v.args(c, 1, 6);
      return null;
    }
    Optional<ForwardingMethod> m = ForwardingMethod.byKeyword(c.arg(1));
    if (m.isEmpty()) {
      v.error(
          c,
          "unknown forwarding method '"
              + c.arg(1)
              + "'"
              + Keywords.suggest(c.arg(1), List.of("NAT", "DR", "TUN", "PROXY", "HTTP"))
                  .map(x -> " (did you mean '" + x + "'?)")
                  .orElse("")
              + "; known: NAT DR TUN PROXY HTTP");
      return null;
    }
    if (m.get() != ForwardingMethod.TUN) {
      if (c.argc() > 1) {
        v.error(c, c.keyword() + " " + m.get() + " takes no options, got '" + c.arg(2) + "'");
        return null;
      }
      return Forwarding.of(m.get());
    }
    Forwarding.TunnelType type = Forwarding.TunnelType.IPIP;
    int port = 0;
    Forwarding.TunnelChecksum csum = Forwarding.TunnelChecksum.NONE;
    for (int i = 2; i <= c.argc(); i++) {
      String o = c.arg(i);
      switch (o) {
        case "type":
          if (i + 1 > c.argc()) {
            v.error(c, "type needs ipip, gue or gre");
            return null;
          }
          switch (c.arg(++i)) {
            case "ipip":
              type = Forwarding.TunnelType.IPIP;
              break;
            case "gue":
              type = Forwarding.TunnelType.GUE;
              break;
            case "gre":
              type = Forwarding.TunnelType.GRE;
              break;
            default:
              v.error(c, "unknown tunnel type '" + c.arg(i) + "' (ipip, gue or gre)");
              return null;
          }
          break;
        case "port":
          {
            Long p = v.number(c, ++i, 1, 65535, "tunnel port");
            if (p == null) {
              return null;
            }
            port = p.intValue();
            break;
          }
        case "nocsum":
          csum = Forwarding.TunnelChecksum.NOCSUM;
          break;
        case "csum":
          csum = Forwarding.TunnelChecksum.CSUM;
          break;
        case "remcsum":
          csum = Forwarding.TunnelChecksum.REMCSUM;
          break;
        default:
          v.error(c, "unknown tunnel option '" + o + "'");
          return null;
      }
    }
    if (type == Forwarding.TunnelType.GUE && port == 0) {
      v.error(c, "tunnel type gue needs a port");
      return null;
    }
    if (type != Forwarding.TunnelType.GUE && port != 0) {
      v.error(c, "only tunnel type gue takes a port");
      return null;
    }
    if (type == Forwarding.TunnelType.IPIP && csum != Forwarding.TunnelChecksum.NONE) {
      v.error(c, "tunnel type ipip takes no checksum option");
      return null;
    }
    if (type == Forwarding.TunnelType.GRE && csum == Forwarding.TunnelChecksum.REMCSUM) {
      v.error(c, "tunnel type gre does not support remcsum");
      return null;
    }
    return new Forwarding(ForwardingMethod.TUN, type, port, csum);
  }

  /** An IPv4 netmask (contiguous) or a prefix length; stored as the prefix length. */
}
