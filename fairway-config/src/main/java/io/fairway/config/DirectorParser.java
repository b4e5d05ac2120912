package io.fairway.config;

import io.fairway.config.model.DirectorSpec;
import io.fairway.config.model.KeySource;
import io.fairway.config.model.LbKind;
import io.fairway.config.model.Scheduler;
import io.fairway.config.model.ShardParam;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * Fairway's director blocks inside a virtual_server ({@code shard { }}, {@code fallback { }},
 * {@code hash { }}), with Varnish's parameter names and defaults. A block must match {@code
 * lb_algo}, and a key source must be one the data plane can see. The shard block, the one with more
 * than one keyword, is its own keyword table ({@link ShardBlock}).
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

  DirectorSpec director(Scheduler s, Map<String, Node> blocks, LbKind method) {
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
    List<Node> kids = b == null ? List.of() : b.block();
    return switch (s) {
      case FALLBACK -> fallback(kids);
      case HASH -> hash(kids, method);
      case SHARD -> new ShardBlock(v, this, method, params).read(kids).build();
      default -> new DirectorSpec.None();
    };
  }

  /** A fallback block: {@code sticky} only. */
  private DirectorSpec fallback(List<Node> kids) {
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

  /** A hash block: {@code by} only, from what this data plane can see. */
  private DirectorSpec hash(List<Node> kids, LbKind method) {
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
      by = KeySource.of(method == LbKind.HTTP ? KeySource.Kind.URL : KeySource.Kind.CLIENT_IP);
    }
    return new DirectorSpec.Hash(by);
  }

  /** {@code healthy CHOSEN|IGNORE|ALL}, or null after reporting. */
  DirectorSpec.@Nullable Healthy healthy(Node c) {
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
  @Nullable Integer alt(Node c) {
    if (!v.args(c, 1, 1)) {
      return null;
    }
    Long a = v.number(c, 1, 0, MAX_ALT, "alt");
    return a == null ? null : a.intValue();
  }

  @Nullable KeySource keySource(Node c, LbKind method, Set<KeySource.Kind> allowed) {
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
    if (kind.needsHttp() && method != LbKind.HTTP) {
      v.error(c, "by " + kind + " needs lb_kind HTTP (it is " + method + ")");
      return null;
    }
    return new KeySource(kind, c.argc() == 2 ? Optional.of(c.arg(2)) : Optional.empty());
  }
}
