package io.fairway.config;

import io.fairway.config.model.DnsDiscovery;
import io.fairway.config.model.DnsDiscovery.NameServer;
import io.fairway.config.model.DnsDiscovery.RecordType;
import io.fairway.config.model.RealServer;
import io.fairway.table.AddressFamily;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * A {@code real_server_dns NAME { ... }} block (a Fairway extension). Its own keywords are read
 * here; everything else is a real_server's, read by {@link RealServerParser} into the template
 * every discovered server copies, so the block takes exactly what a real_server takes.
 */
final class DnsBlockParser {
  /** The most servers one block may take from an answer. */
  static final int MAX_SERVERS = 4096;

  private static final Pattern LABEL =
      Pattern.compile("[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?");

  private final Values v;
  private final RealServerParser rs;

  DnsBlockParser(Values v, RealServerParser rs) {
    this.v = v;
    this.rs = rs;
  }

  /** The blocks of one virtual server, a repeated name and type reported and dropped. */
  List<DnsDiscovery> all(List<Node> nodes, RealServerParser.VsContext vs) {
    List<DnsDiscovery> out = new ArrayList<>();
    for (Node n : nodes) {
      DnsDiscovery d = parse(n, vs);
      if (d == null) {
        continue;
      }
      DnsDiscovery same =
          out.stream()
              .filter(o -> o.name().equalsIgnoreCase(d.name()) && o.type() == d.type())
              .findFirst()
              .orElse(null);
      if (same != null) {
        v.error(
            n,
            "a second real_server_dns "
                + d.name()
                + " type "
                + d.type()
                + " (the first is at "
                + same.location()
                + ")");
        continue;
      }
      out.add(d);
    }
    return out;
  }

  /** The block, or null after reporting why not. */
  @Nullable DnsDiscovery parse(Node n, RealServerParser.VsContext vs) {
    if (n.argc() != 1) {
      v.error(n, "expected 'real_server_dns NAME { ... }'");
      return null;
    }
    String name = dnsName(n.arg(1));
    if (name == null) {
      v.error(n, "real_server_dns: '" + n.arg(1) + "' is not a DNS name");
      return null;
    }
    if (!v.block(n)) {
      return null;
    }
    Block b = new Block(this);
    for (Node c : n.block()) {
      if (!Block.TABLE.dispatch(b, c)) {
        b.rest.add(c);
      }
    }
    if (b.type == null) {
      if (b.typeSeen) {
        return null; // reported on its line
      }
      v.error(n, "real_server_dns " + name + " needs 'type SRV', 'type A' or 'type AAAA'");
      return null;
    }
    int p = companions(n, b.type, b.portNode, b.port, b.srvWeightNode, vs);
    if (p < 0) {
      return null;
    }
    int placeholderPort = b.type == RecordType.SRV ? DnsDiscovery.SRV_PLACEHOLDER_PORT : p;
    RealServer template = template(n, b.rest, b.type, placeholderPort, vs);
    if (template == null) {
      return null;
    }
    return new DnsDiscovery(
        Values.loc(n),
        name,
        b.type,
        b.type == RecordType.SRV ? 0 : p,
        b.nameservers,
        b.refresh,
        b.hold,
        b.max,
        b.srvWeightNode != null,
        template);
  }

  /**
   * The block's own keywords as written; every other line is kept for the real_server template.
   * {@code weight srv} is the block's, any other weight the template's.
   */
  private static final class Block {
    static final KeywordTable<Block> TABLE = table();

    final DnsBlockParser p;
    final Values v;
    @Nullable RecordType type;
    boolean typeSeen;
    @Nullable Node portNode;
    @Nullable Integer port;
    final List<NameServer> nameservers = new ArrayList<>();
    Duration refresh = DnsDiscovery.DEFAULT_REFRESH;
    Duration hold = DnsDiscovery.DEFAULT_HOLD;
    int max = DnsDiscovery.DEFAULT_MAX_SERVERS;
    @Nullable Node srvWeightNode;
    final List<Node> rest = new ArrayList<>();

    Block(DnsBlockParser p) {
      this.p = p;
      this.v = p.v;
    }

    private static KeywordTable<Block> table() {
      KeywordTable<Block> t = new KeywordTable<>();
      t.on(
          "type",
          (b, c) -> {
            b.typeSeen = true;
            b.type = b.p.type(c);
          });
      t.on(
          "port",
          (b, c) -> {
            b.portNode = c;
            b.port = b.v.args(c, 1, 1) ? b.v.port(c, 1) : null;
          });
      t.on(
          "nameserver",
          (b, c) -> {
            NameServer ns = b.p.nameserver(c);
            if (ns != null) {
              b.nameservers.add(ns);
            }
          });
      t.on(
          "refresh",
          (b, c) ->
              b.refresh =
                  b.v.args(c, 1, 1) ? orElse(b.v.timer(c, 1, false), b.refresh) : b.refresh);
      t.on(
          "hold",
          (b, c) -> b.hold = b.v.args(c, 1, 1) ? orElse(b.v.timer(c, 1, true), b.hold) : b.hold);
      t.on(
          "max_servers",
          (b, c) -> {
            Long m = b.v.args(c, 1, 1) ? b.v.number(c, 1, 1, MAX_SERVERS, "max_servers") : null;
            b.max = m == null ? b.max : m.intValue();
          });
      t.unlisted(
          "weight",
          (b, c) -> {
            if (c.argc() == 1 && c.arg(1).equals("srv")) {
              b.srvWeightNode = c;
            } else {
              b.rest.add(c);
            }
          });
      return t;
    }
  }

  /**
   * Checks that the type's companions are there and the others are not; the real servers' port for
   * A/AAAA (the block's, else the virtual server's), 0 for SRV, -1 after an error.
   */
  private int companions(
      Node n,
      RecordType type,
      @Nullable Node portNode,
      @Nullable Integer port,
      @Nullable Node srvWeight,
      RealServerParser.VsContext vs) {
    if (type == RecordType.SRV) {
      if (portNode != null) {
        v.error(portNode, "'port' is for type A or AAAA: SRV answers carry their port");
        return -1;
      }
      return 0;
    }
    if (srvWeight != null) {
      v.error(srvWeight, "'weight srv' needs type SRV (A and AAAA answers carry no weight)");
      return -1;
    }
    if (portNode != null) {
      if (port == null) {
        return -1;
      }
      if (port == 0) {
        v.error(portNode, "port: must be 1..65535");
        return -1;
      }
      return port;
    }
    if (vs.port() == 0) {
      v.error(n, "real_server_dns type " + type + " needs 'port N' (the virtual server has none)");
      return -1;
    }
    return vs.port();
  }

  /**
   * The real server every answer copies: the block's other lines read as a real_server's, at the
   * unspecified address of the family asked for (so the family rules apply to it as written).
   */
  private @Nullable RealServer template(
      Node n, List<Node> rest, RecordType type, int port, RealServerParser.VsContext vs) {
    AddressFamily family =
        type == RecordType.AAAA
            ? AddressFamily.INET6
            : type == RecordType.A || vs.family() == null ? AddressFamily.INET : vs.family();
    String any = family == AddressFamily.INET6 ? "::" : "0.0.0.0";
    Node t = new Node(n.line, List.of("real_server", any, Integer.toString(port)));
    t.children = rest;
    return rs.realServer(t, vs);
  }

  private @Nullable RecordType type(Node c) {
    if (!v.args(c, 1, 1)) {
      return null;
    }
    try {
      return RecordType.valueOf(c.arg(1).toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      v.error(c, "type: '" + c.arg(1) + "' is not SRV, A or AAAA");
      return null;
    }
  }

  private @Nullable NameServer nameserver(Node c) {
    if (!v.args(c, 1, 2)) {
      return null;
    }
    InetAddress a = v.address(c, 1, "address");
    Integer p = c.argc() == 2 ? v.port(c, 2) : Integer.valueOf(53);
    if (a == null || p == null) {
      return null;
    }
    if (p == 0) {
      v.error(c, "nameserver: port must be 1..65535");
      return null;
    }
    return new NameServer(a, p);
  }

  /**
   * The name without its trailing dot, or null if it is not a DNS name: labels of letters, digits,
   * '-' and '_' (SRV's service labels), 1..63 characters, 253 in all, not all-numeric (an address).
   */
  static @Nullable String dnsName(String s) {
    String name = s.endsWith(".") ? s.substring(0, s.length() - 1) : s;
    if (name.isEmpty() || name.length() > 253 || Values.address(name) != null) {
      return null;
    }
    boolean numeric = true;
    for (String label : name.split("\\.", -1)) {
      if (!LABEL.matcher(label).matches()) {
        return null;
      }
      numeric &= label.chars().allMatch(Character::isDigit);
    }
    return numeric ? null : name;
  }

  private static <T> T orElse(@Nullable T value, T fallback) {
    return value != null ? value : fallback;
  }
}
