package io.fairway.config;

import io.fairway.config.model.DirectorSpec;
import io.fairway.config.model.KeySource;
import io.fairway.config.model.LbKind;
import io.fairway.config.model.ShardParam;
import java.util.EnumSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Top-level {@code shard_param NAME { by healthy warmup rampup alt }} blocks (a Fairway extension;
 * Varnish's {@code directors.shard_param()}). Whether a key source fits the data plane is checked
 * where a shard associates the set, because only the virtual_server knows its {@code lb_kind}.
 */
final class ShardParamParser {
  static final Set<String> KEYWORDS = Set.of("by", "healthy", "warmup", "rampup", "alt");
  private final Values v;
  private final Map<String, ShardParam> params;

  ShardParamParser(Values v, Map<String, ShardParam> params) {
    this.v = v;
    this.params = params;
  }

  void shardParam(Node n) {
    if (!v.block(n)) {
      return;
    }
    if (n.argc() != 1) {
      v.error(n, "expected 'shard_param NAME { ... }'");
      return;
    }
    String name = n.arg(1);
    ShardParam prev = params.get(name);
    if (prev != null) {
      v.error(n, "duplicate shard_param '" + name + "' (first at " + prev.location() + ")");
      return;
    }
    Optional<KeySource> by = Optional.empty();
    Optional<DirectorSpec.Healthy> healthy = Optional.empty();
    Optional<Double> warmup = Optional.empty();
    Optional<Boolean> rampup = Optional.empty();
    Optional<Integer> alt = Optional.empty();
    DirectorParser dp = new DirectorParser(v);
    for (Node c : n.block()) {
      switch (c.keyword()) {
        case "by" -> {
          // Any source here; the associating virtual_server checks it against its lb_kind.
          by =
              Optional.ofNullable(
                  dp.keySource(c, LbKind.HTTP, EnumSet.allOf(KeySource.Kind.class)));
        }
        case "healthy" -> {
          healthy = Optional.ofNullable(dp.healthy(c));
        }
        case "warmup" -> {
          if (v.args(c, 1, 1)) {
            warmup = Optional.ofNullable(v.decimal(c, 1, 0, 1, "warmup probability"));
          }
        }
        case "rampup" -> {
          if (v.args(c, 0, 1)) {
            rampup = Optional.ofNullable(v.bool(c, 1));
          }
        }
        case "alt" -> {
          alt = Optional.ofNullable(dp.alt(c));
        }
        default -> {
          v.unknown(c, KEYWORDS, "shard_param");
        }
      }
    }
    params.put(name, new ShardParam(Values.loc(n), name, by, healthy, warmup, rampup, alt));
  }
}
