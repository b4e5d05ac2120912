package io.fairway.config;

import io.fairway.config.model.DirectorSpec;
import io.fairway.config.model.ForwardingMethod;
import io.fairway.config.model.KeySource;
import io.fairway.config.model.Scheduler;
import io.fairway.config.model.ShardParam;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Fairway's director blocks inside a virtual_server ({@code shard { }}, {@code fallback { }},
 * {@code hash { }}), with Varnish's parameter names and defaults. A block must match {@code
 * lb_algo}, and a key source must be one the data plane can see.
 */
final class DirectorParser {
  /** The most alternatives an {@code alt} may ask for (more than any ring has members). */
  static final int MAX_ALT = 65_535;

  private final Values v;
  private final Map<String, ShardParam> params;

  DirectorParser(Values v) {
    this(v, Map.of());
  }

  /** With the top-level shard_param blocks a {@code shard { associate NAME }} may name. */
  DirectorParser(Values v, Map<String, ShardParam> params) {
    this.v = v;
    this.params = params;
  }

  DirectorSpec director(Scheduler s, Map<String, Node> blocks, ForwardingMethod method) {
    for (Map.Entry<String, Node> e : blocks.entrySet()) {
      if (!e.getKey().equals(s.keyword())) {
        v.error(
            e.getValue(),
            "'"
                + e.getKey()
                + " { }' needs lb_algo "
                + e.getKey()
                + " (it is "
                + s.keyword()
                + ")");
      }
    }
    Node b = blocks.get(s.keyword());
    List<Node> kids = b == null ? List.of() : b.children;
    switch (s) {
      case FALLBACK:
        {
          boolean sticky = false;
          for (Node c : kids) {
            if (c.keyword().equals("sticky")) {
              Boolean x = v.args(c, 0, 1) ? v.bool(c, 1) : null;
              if (x != null) {
                sticky = x;
              }
            } else {
              v.unknown(c, Set.of("sticky"), "fallback");
            }
          }
          return new DirectorSpec.Fallback(sticky);
        }
      case HASH:
        {
          KeySource by = null;
          for (Node c : kids) {
            if (c.keyword().equals("by")) {
              by =
                  keySource(
                      c,
                      method,
                      EnumSet.of(
                          KeySource.Kind.URL,
                          KeySource.Kind.HEADER,
                          KeySource.Kind.COOKIE,
                          KeySource.Kind.CLIENT_IP));
            } else {
              v.unknown(c, Set.of("by"), "hash");
            }
          }
          if (by == null) {
            by =
                KeySource.of(
                    method == ForwardingMethod.HTTP
                        ? KeySource.Kind.URL
                        : KeySource.Kind.CLIENT_IP);
          }
          return new DirectorSpec.Hash(by);
        }
      case SHARD:
        return shard(kids, method);
      default:
        return new DirectorSpec.None();
    }
  }

  /**
   * A shard block. Its pick arguments take Varnish's precedence: what the block sets (the VCL's
   * {@code .backend(...)} arguments) over the associated shard_param over Varnish's defaults.
   */
  private DirectorSpec.Shard shard(List<Node> kids, ForwardingMethod method) {
    int replicas = DirectorSpec.Shard.DEFAULT_REPLICAS;
    KeySource by = null;
    DirectorSpec.Healthy healthy = null;
    Double warmup = null;
    Integer alt = null;
    Duration rampup = Duration.ZERO;
    ShardParam associated = null;
    Node associateNode = null;
    for (Node c : kids) {
      switch (c.keyword()) {
        case "replicas":
          if (v.args(c, 1, 1)) {
            Long r = v.number(c, 1, 1, 100_000, "replicas");
            if (r != null) {
              replicas = r.intValue();
            }
          }
          break;
        case "by":
          by = keySource(c, method, EnumSet.allOf(KeySource.Kind.class));
          break;
        case "healthy":
          healthy = healthy(c);
          break;
        case "warmup":
          if (v.args(c, 1, 1)) {
            warmup = v.decimal(c, 1, 0, 1, "warmup probability");
          }
          break;
        case "rampup":
          if (v.args(c, 1, 1)) {
            Duration d = v.timer(c, 1, true);
            if (d != null) {
              rampup = d;
            }
          }
          break;
        case "alt":
          alt = alt(c);
          break;
        case "associate":
          if (v.args(c, 1, 1)) {
            associated = params.get(c.arg(1));
            associateNode = c;
            if (associated == null) {
              Optional<String> s = Keywords.suggest(c.arg(1), params.keySet());
              v.error(
                  c,
                  "associate: no shard_param named '"
                      + c.arg(1)
                      + "'"
                      + s.map(x -> " (did you mean '" + x + "'?)").orElse("")
                      + (params.isEmpty()
                          ? " (define it at the top level: shard_param " + c.arg(1) + " { ... })"
                          : ""));
            }
          }
          break;
        default:
          v.unknown(
              c,
              Set.of("replicas", "by", "healthy", "warmup", "rampup", "alt", "associate"),
              "shard");
      }
    }
    boolean rampupOn = true;
    if (associated != null) {
      if (by == null && associated.by().isPresent()) {
        KeySource k = associated.by().get();
        if (k.kind().needsHttp() && method != ForwardingMethod.HTTP) {
          v.error(
              associateNode,
              "associate "
                  + associated.name()
                  + ": its 'by "
                  + k
                  + "' (at "
                  + associated.location()
                  + ") needs lb_kind HTTP (it is "
                  + method
                  + ")");
        }
        by = k;
      }
      healthy = healthy != null ? healthy : associated.healthy().orElse(null);
      warmup = warmup != null ? warmup : associated.warmup().orElse(null);
      alt = alt != null ? alt : associated.alt().orElse(null);
      rampupOn = associated.rampup().orElse(true);
    }
    if (by == null) {
      by =
          KeySource.of(
              method == ForwardingMethod.HTTP ? KeySource.Kind.HASH : KeySource.Kind.CLIENT_IP);
    }
    return new DirectorSpec.Shard(
        replicas,
        by,
        healthy == null ? DirectorSpec.Healthy.CHOSEN : healthy,
        warmup == null ? 0 : warmup,
        rampup,
        alt == null ? 0 : alt,
        rampupOn,
        Optional.ofNullable(associated).map(ShardParam::name));
  }

  /** {@code healthy CHOSEN|IGNORE|ALL}, or null after reporting. */
  DirectorSpec.Healthy healthy(Node c) {
    if (!v.args(c, 1, 1)) {
      return null;
    }
    try {
      return DirectorSpec.Healthy.valueOf(c.arg(1));
    } catch (IllegalArgumentException ex) {
      v.error(c, "healthy: '" + c.arg(1) + "' is not CHOSEN, IGNORE or ALL");
      return null;
    }
  }

  /** {@code alt N}, or null after reporting. */
  Integer alt(Node c) {
    if (!v.args(c, 1, 1)) {
      return null;
    }
    Long a = v.number(c, 1, 0, MAX_ALT, "alt");
    return a == null ? null : a.intValue();
  }

  KeySource keySource(Node c, ForwardingMethod method, Set<KeySource.Kind> allowed) {
    if (!v.args(c, 1, 2)) {
      return null;
    }
    KeySource.Kind kind;
    try {
      kind = KeySource.Kind.valueOf(c.arg(1));
    } catch (IllegalArgumentException e) {
      kind = null;
    }
    if (kind == null || !allowed.contains(kind)) {
      v.error(
          c,
          "by: '"
              + c.arg(1)
              + "' is not one of "
              + new TreeSet<>(allowed.stream().map(Enum::name).toList()));
      return null;
    }
    if (kind.takesName() != (c.argc() == 2)) {
      v.error(
          c, kind.takesName() ? "by " + kind + " needs a name" : "by " + kind + " takes no name");
      return null;
    }
    if (kind.needsHttp() && method != ForwardingMethod.HTTP) {
      v.error(c, "by " + kind + " needs lb_kind HTTP (it is " + method + ")");
      return null;
    }
    return new KeySource(kind, c.argc() == 2 ? Optional.of(c.arg(2)) : Optional.empty());
  }
}
