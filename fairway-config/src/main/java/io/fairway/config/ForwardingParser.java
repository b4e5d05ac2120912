package io.fairway.config;

import io.fairway.config.model.Forwarding;
import io.fairway.config.model.LbKind;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/** {@code lb_kind}, {@code lvs_method} and {@code sorry_server_lvs_method} with tunnel options. */
final class ForwardingParser {
  private ForwardingParser() {}

  /** {@code lb_kind NAT|DR|TUN [type ipip|gue|gre] [port N] [nocsum|csum|remcsum]|PROXY|HTTP}. */
  static @Nullable Forwarding parse(Node c, Values v) {
    if (c.hasBlock() || c.argc() < 1) {
      v.args(c, 1, 6);
      return null;
    }
    Optional<LbKind> m = LbKind.byKeyword(c.arg(1));
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
    if (m.get() != LbKind.TUN) {
      if (c.argc() > 1) {
        v.error(c, c.keyword() + " " + m.get() + " takes no options, got '" + c.arg(2) + "'");
        return null;
      }
      return Forwarding.of(m.get());
    }
    Tunnel t = new Tunnel();
    for (int i = 2; i <= c.argc(); i++) {
      i = t.option(c, i, v);
      if (i < 0) {
        return null;
      }
    }
    return t.build(c, v);
  }

  /** A TUN lb_kind's options as they are read; keepalived's defaults until one is written. */
  private static final class Tunnel {
    Forwarding.TunnelType type = Forwarding.TunnelType.IPIP;
    int port;
    Forwarding.TunnelChecksum csum = Forwarding.TunnelChecksum.NONE;

    /** Reads the option at word {@code i}; the index of its last word, -1 after reporting. */
    int option(Node c, int i, Values v) {
      String o = c.arg(i);
      switch (o) {
        case "type" -> {
          return type(c, i, v);
        }
        case "port" -> {
          Long p = v.number(c, i + 1, 1, 65535, "tunnel port");
          if (p == null) {
            return -1;
          }
          port = p.intValue();
          return i + 1;
        }
        case "nocsum" -> csum = Forwarding.TunnelChecksum.NOCSUM;
        case "csum" -> csum = Forwarding.TunnelChecksum.CSUM;
        case "remcsum" -> csum = Forwarding.TunnelChecksum.REMCSUM;
        default -> {
          v.error(c, "unknown tunnel option '" + o + "'");
          return -1;
        }
      }
      return i;
    }

    private int type(Node c, int i, Values v) {
      if (i + 1 > c.argc()) {
        v.error(c, "type needs ipip, gue or gre");
        return -1;
      }
      switch (c.arg(i + 1)) {
        case "ipip" -> type = Forwarding.TunnelType.IPIP;
        case "gue" -> type = Forwarding.TunnelType.GUE;
        case "gre" -> type = Forwarding.TunnelType.GRE;
        default -> {
          v.error(c, "unknown tunnel type '" + c.arg(i + 1) + "' (ipip, gue or gre)");
          return -1;
        }
      }
      return i + 1;
    }

    /** The tunnel, or null after reporting an option its type does not take. */
    @Nullable Forwarding build(Node c, Values v) {
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
      return new Forwarding(LbKind.TUN, type, port, csum);
    }
  }
}
