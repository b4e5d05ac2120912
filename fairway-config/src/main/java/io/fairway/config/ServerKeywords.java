package io.fairway.config;

import io.fairway.config.model.Forwarding;
import io.fairway.config.model.Scheduler;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The keywords a virtual_server and a real_server share (its own value in a real_server, the
 * default for its real servers in a virtual_server): written once here and included in both blocks'
 * tables, so the two cannot read the same keyword differently.
 */
final class ServerKeywords {
  /** What the shared keywords set; a block starts it from its defaults or its parent's values. */
  static final class Common {
    final Values v;

    /**
     * The scheduler when it is known while the block is read (a real_server's, from its virtual
     * server), so a decimal weight is refused on its own line; null in a virtual_server, which
     * checks once its lb_algo is known.
     */
    final @Nullable Scheduler scheduler;

    final InheritedTiming timing = new InheritedTiming();
    @Nullable String name;
    @Nullable Double weight;
    @Nullable Node weightNode;
    @Nullable Forwarding forwarding;
    @Nullable Node forwardingNode;
    boolean inhibit;
    Duration slowStart;
    int maxConns;
    @Nullable Node maxConnsNode;
    @Nullable String virtualhost;

    Common(
        Values v,
        @Nullable Scheduler scheduler,
        @Nullable Double weight,
        @Nullable Forwarding forwarding,
        boolean inhibit,
        Duration slowStart,
        int maxConns) {
      this.v = v;
      this.scheduler = scheduler;
      this.weight = weight;
      this.forwarding = forwarding;
      this.inhibit = inhibit;
      this.slowStart = slowStart;
      this.maxConns = maxConns;
    }
  }

  static final KeywordTable<Common> TABLE = table();

  private ServerKeywords() {}

  private static KeywordTable<Common> table() {
    KeywordTable<Common> t = new KeywordTable<>();
    t.include(InheritedTiming.TABLE, c -> new InheritedTiming.Level(c.timing, false, c.v));
    t.on(
        "name",
        (c, n) -> {
          if (c.v.args(n, 1, 1)) {
            c.name = n.arg(1);
          }
        });
    t.on("weight", ServerKeywords::weight);
    t.on("lvs_method", ServerKeywords::forwarding);
    t.on(
        "inhibit_on_failure",
        (c, n) -> {
          Boolean b = c.v.args(n, 0, 1) ? c.v.bool(n, 1) : null;
          if (b != null) {
            c.inhibit = b;
          }
        });
    t.on(
        "slow_start",
        (c, n) -> {
          Duration d = c.v.slowStart(n);
          if (d != null) {
            c.slowStart = d;
          }
        });
    t.on(
        "max_conns",
        (c, n) -> {
          Integer m = c.v.maxConns(n);
          if (m != null) {
            c.maxConns = m;
            c.maxConnsNode = n;
          }
        });
    t.on(
        "virtualhost",
        (c, n) -> {
          if (c.v.args(n, 1, 1)) {
            c.virtualhost = n.arg(1);
          }
        });
    t.on(List.of("smtp_alert", "snmp_name"), (c, n) -> unsupported(c.v, n));
    return t;
  }

  /** keepalived keywords Fairway reads but does not act on yet. */
  static void unsupported(Values v, Node n) {
    v.warn(n, "'" + n.keyword() + "' is not supported by Fairway yet; ignored");
  }

  /** lvs_method (and a virtual_server's lb_kind); a bad method keeps the value before it. */
  static void forwarding(Common c, Node n) {
    Forwarding f = ForwardingParser.parse(n, c.v);
    if (f != null) {
      c.forwarding = f;
      c.forwardingNode = n;
    }
  }

  private static void weight(Common c, Node n) {
    if (!c.v.args(n, 1, 1)) {
      return;
    }
    Double w = c.v.decimal(n, 1, 0, Values.INT32_MAX, "weight");
    if (w == null) {
      return;
    }
    if (c.scheduler != null && c.scheduler.isKernel() && w != Math.rint(w)) {
      c.v.error(
          n,
          "weight must be an integer for lb_algo "
              + c.scheduler.keyword()
              + " (decimals are for the Varnish directors)");
    }
    c.weight = w;
    c.weightNode = n;
  }
}
