package io.fairway.config;

import io.fairway.config.model.Scheduler;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A {@code director NAME { lb_algo ...; members ...; shard|fallback|hash { } }} block as written:
 * its keyword table and the state its handlers fill. The members are checked by {@link
 * LayoutParser} once every director of the virtual_server is known.
 */
final class DirectorBlock {
  static final KeywordTable<DirectorBlock> TABLE =
      new KeywordTable<DirectorBlock>()
          .on("lb_algo", DirectorBlock::scheduler)
          .on("members", (b, c) -> b.membersNode = c)
          .on(List.of("shard", "fallback", "hash"), DirectorBlock::parameters);

  private final Values v;
  private final String name;
  @Nullable Scheduler scheduler;
  @Nullable Node membersNode;
  final Map<String, Node> blocks = new LinkedHashMap<>();

  /** Set when a line makes the rest of the block meaningless (a kernel lb_algo). */
  private boolean refused;

  private DirectorBlock(Values v, String name) {
    this.v = v;
    this.name = name;
  }

  /** The block, or null after reporting why it cannot be a director. */
  static @Nullable DirectorBlock read(Values v, Node g) {
    DirectorBlock b = new DirectorBlock(v, g.arg(1));
    for (Node c : g.block()) {
      if (!TABLE.dispatch(b, c)) {
        v.unknown(c, TABLE.known(), "director");
      }
      if (b.refused) {
        return null;
      }
    }
    if (b.scheduler == null) {
      v.error(
          g,
          "director "
              + b.name
              + " needs lb_algo (round_robin, fallback, random, hash or"
              + " shard)");
      return null;
    }
    if (b.membersNode == null) {
      v.error(
          g,
          "director "
              + b.name
              + " needs a 'members' line (real servers or directors of"
              + " this virtual_server, by name)");
      return null;
    }
    return b;
  }

  private static void scheduler(DirectorBlock b, Node c) {
    if (!b.v.args(c, 1, 1)) {
      return;
    }
    Optional<Scheduler> s = Scheduler.byKeyword(c.arg(1));
    if (s.isEmpty() || s.get().isKernel()) {
      b.v.error(
          c,
          "director "
              + b.name
              + ": lb_algo '"
              + c.arg(1)
              + "' is not a Varnish "
              + "director (round_robin, fallback, random, hash or shard); a kernel scheduler"
              + " cannot be layered");
      b.refused = true;
      return;
    }
    b.scheduler = s.get();
  }

  /** A layered director's own parameter block, read by {@link DirectorParser}. */
  private static void parameters(DirectorBlock b, Node c) {
    if (b.v.block(c)) {
      if (c.argc() > 0) {
        b.v.error(c, "'" + c.keyword() + "' takes no arguments before its { } block");
      }
      b.blocks.put(c.keyword(), c);
    }
  }
}
