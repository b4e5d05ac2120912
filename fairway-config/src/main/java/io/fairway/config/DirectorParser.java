package io.fairway.config;

import io.fairway.config.model.DirectorSpec;
import io.fairway.config.model.ForwardingMethod;
import io.fairway.config.model.KeySource;
import io.fairway.config.model.Scheduler;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Fairway's director blocks inside a virtual_server ({@code shard { }}, {@code fallback { }},
 * {@code hash { }}), with Varnish's parameter names and defaults. A block must match
 * {@code lb_algo}, and a key source must be one the data plane can see.
 */
final class DirectorParser {
  private final Values v;

  DirectorParser(Values v) {
    this.v = v;
  }

  DirectorSpec director(Scheduler s, Map<String, Node> blocks, ForwardingMethod method) {
    for (Map.Entry<String, Node> e : blocks.entrySet()) {
      if (!e.getKey().equals(s.keyword())) {
        v.error(e.getValue(), "'" + e.getKey() + " { }' needs lb_algo " + e.getKey()
            + " (it is " + s.keyword() + ")");
      }
    }
    Node b = blocks.get(s.keyword());
    List<Node> kids = b == null ? List.of() : b.children;
    switch (s) {
      case FALLBACK: {
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
      case HASH: {
        KeySource by = null;
        for (Node c : kids) {
          if (c.keyword().equals("by")) {
            by = keySource(c, method, EnumSet.of(KeySource.Kind.URL, KeySource.Kind.HEADER,
                KeySource.Kind.COOKIE, KeySource.Kind.CLIENT_IP));
          } else {
            v.unknown(c, Set.of("by"), "hash");
          }
        }
        if (by == null) {
          by = KeySource.of(method == ForwardingMethod.HTTP ? KeySource.Kind.URL
              : KeySource.Kind.CLIENT_IP);
        }
        return new DirectorSpec.Hash(by);
      }
      case SHARD: {
        int replicas = DirectorSpec.Shard.DEFAULT_REPLICAS;
        KeySource by = null;
        DirectorSpec.Healthy healthy = DirectorSpec.Healthy.CHOSEN;
        double warmup = 0;
        Duration rampup = Duration.ZERO;
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
              if (v.args(c, 1, 1)) {
                try {
                  healthy = DirectorSpec.Healthy.valueOf(c.arg(1));
                } catch (IllegalArgumentException ex) {
                  v.error(c, "healthy: '" + c.arg(1) + "' is not CHOSEN, IGNORE or ALL");
                }
              }
              break;
            case "warmup":
              if (v.args(c, 1, 1)) {
                Double w = v.decimal(c, 1, 0, 1, "warmup probability");
                if (w != null) {
                  warmup = w;
                }
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
            default:
              v.unknown(c, Set.of("replicas", "by", "healthy", "warmup", "rampup"), "shard");
          }
        }
        if (by == null) {
          by = KeySource.of(method == ForwardingMethod.HTTP ? KeySource.Kind.HASH
              : KeySource.Kind.CLIENT_IP);
        }
        return new DirectorSpec.Shard(replicas, by, healthy, warmup, rampup);
      }
      default:
        return new DirectorSpec.None();
    }
  }

  private KeySource keySource(Node c, ForwardingMethod method, Set<KeySource.Kind> allowed) {
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
      v.error(c, "by: '" + c.arg(1) + "' is not one of " + new TreeSet<>(
          allowed.stream().map(Enum::name).toList()));
      return null;
    }
    if (kind.takesName() != (c.argc() == 2)) {
      v.error(c, kind.takesName() ? "by " + kind + " needs a name" : "by " + kind
          + " takes no name");
      return null;
    }
    if (kind.needsHttp() && method != ForwardingMethod.HTTP) {
      v.error(c, "by " + kind + " needs lb_kind HTTP (it is " + method + ")");
      return null;
    }
    return new KeySource(kind, c.argc() == 2 ? Optional.of(c.arg(2)) : Optional.empty());
  }
}
