package io.fairway.config;

import io.fairway.config.model.DirectorSpec;
import io.fairway.config.model.KeySource;
import io.fairway.config.model.LbKind;
import io.fairway.config.model.ShardParam;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A {@code shard { }} block as written: its keyword table and the state its handlers fill. Its pick
 * arguments take Varnish's precedence: what the block sets (the VCL's {@code .backend(...)}
 * arguments) over the associated shard_param over Varnish's defaults.
 */
final class ShardBlock {
  static final KeywordTable<ShardBlock> TABLE = table();

  private final Values v;
  private final DirectorParser parser;
  private final LbKind method;
  private final Map<String, ShardParam> params;
  private int replicas = DirectorSpec.Shard.DEFAULT_REPLICAS;
  private @Nullable KeySource by;
  private DirectorSpec.@Nullable Healthy healthy;
  private @Nullable Double warmup;
  private @Nullable Integer alt;
  private Duration rampup = Duration.ZERO;
  private @Nullable ShardParam associated;
  private @Nullable Node associateNode;

  ShardBlock(Values v, DirectorParser parser, LbKind method, Map<String, ShardParam> params) {
    this.v = v;
    this.parser = parser;
    this.method = method;
    this.params = params;
  }

  private static KeywordTable<ShardBlock> table() {
    KeywordTable<ShardBlock> t = new KeywordTable<>();
    t.on(
        "replicas",
        (b, c) -> {
          Long r = b.v.args(c, 1, 1) ? b.v.number(c, 1, 1, 100_000, "replicas") : null;
          if (r != null) {
            b.replicas = r.intValue();
          }
        });
    t.on(
        "by",
        (b, c) -> b.by = b.parser.keySource(c, b.method, EnumSet.allOf(KeySource.Kind.class)));
    t.on("healthy", (b, c) -> b.healthy = b.parser.healthy(c));
    t.on(
        "warmup",
        (b, c) -> {
          if (b.v.args(c, 1, 1)) {
            b.warmup = b.v.decimal(c, 1, 0, 1, "warmup probability");
          }
        });
    t.on(
        "rampup",
        (b, c) -> {
          Duration d = b.v.args(c, 1, 1) ? b.v.timer(c, 1, true) : null;
          if (d != null) {
            b.rampup = d;
          }
        });
    t.on("alt", (b, c) -> b.alt = b.parser.alt(c));
    t.on("associate", ShardBlock::associate);
    return t;
  }

  private static void associate(ShardBlock b, Node c) {
    if (!b.v.args(c, 1, 1)) {
      return;
    }
    b.associated = b.params.get(c.arg(1));
    b.associateNode = c;
    if (b.associated == null) {
      Optional<String> s = Keywords.suggest(c.arg(1), b.params.keySet());
      b.v.error(
          c,
          "associate: no shard_param named '"
              + c.arg(1)
              + "'"
              + s.map(x -> " (did you mean '" + x + "'?)").orElse("")
              + (b.params.isEmpty()
                  ? " (define it at the top level: shard_param " + c.arg(1) + " { ... })"
                  : ""));
    }
  }

  /** Reads the block's lines (none when the block is not written). */
  ShardBlock read(List<Node> lines) {
    for (Node c : lines) {
      if (!TABLE.dispatch(this, c)) {
        v.unknown(c, TABLE.known(), "shard");
      }
    }
    return this;
  }

  /** The director: the block's values over its shard_param's over the defaults. */
  DirectorSpec.Shard build() {
    boolean rampupOn = true;
    if (associated != null) {
      inheritBy();
      healthy = healthy != null ? healthy : associated.healthy().orElse(null);
      warmup = warmup != null ? warmup : associated.warmup().orElse(null);
      alt = alt != null ? alt : associated.alt().orElse(null);
      rampupOn = associated.rampup().orElse(true);
    }
    if (by == null) {
      by = KeySource.of(method == LbKind.HTTP ? KeySource.Kind.HASH : KeySource.Kind.CLIENT_IP);
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

  /** The shard_param's key source when the block has none, if this data plane can see it. */
  private void inheritBy() {
    ShardParam associated =
        Objects.requireNonNull(this.associated, "called with an associated shard_param");
    if (by != null || associated.by().isEmpty()) {
      return;
    }
    KeySource k = associated.by().get();
    if (k.kind().needsHttp() && method != LbKind.HTTP) {
      v.error(
          Objects.requireNonNull(associateNode, "associate was read from a node"),
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
}
