package io.fairway.config;

import static io.fairway.config.DumpText.number;
import static io.fairway.config.DumpText.onOff;
import static io.fairway.config.DumpText.q;
import static io.fairway.config.DumpText.time;

import io.fairway.config.model.DirectorGroup;
import io.fairway.config.model.DirectorLayout;
import io.fairway.config.model.DirectorSpec;
import io.fairway.config.model.ShardParam;
import java.util.stream.Collectors;

/**
 * Writes the Varnish-style director keywords: a virtual server's or named director's {@code
 * fallback}, {@code hash} or {@code shard} block, the named {@code director} blocks of a layered
 * virtual server, and the top-level {@code shard_param} blocks.
 *
 * <p>Why apart: directors are a Fairway extension with their own small grammar, written the same
 * way wherever they appear.
 */
final class DirectorWriter {
  private final DumpText out;

  DirectorWriter(DumpText out) {
    this.out = out;
  }

  void director(DirectorSpec d) {
    if (d instanceof DirectorSpec.Fallback f) {
      out.open("fallback");
      out.line("sticky " + onOff(f.sticky()));
      out.close();
    } else if (d instanceof DirectorSpec.Hash h) {
      out.open("hash");
      out.line("by " + h.by().kind() + h.by().name().map(n -> " " + q(n)).orElse(""));
      out.close();
    } else if (d instanceof DirectorSpec.Shard s) {
      out.open("shard");
      out.line("replicas " + s.replicas());
      out.line("by " + s.by().kind() + s.by().name().map(n -> " " + q(n)).orElse(""));
      out.line("healthy " + s.healthy());
      out.line("warmup " + number(s.warmup()));
      out.line("rampup " + time(s.rampup()));
      if (s.alt() != 0) {
        out.line("alt " + s.alt());
      }
      s.associate().ifPresent(p -> out.line("associate " + q(p)));
      out.close();
    }
  }

  /** A shard_param block with what it sets, nothing more: the rest is Varnish's defaults. */
  void shardParam(ShardParam p) {
    out.open("shard_param " + q(p.name()));
    p.by().ifPresent(b -> out.line("by " + b.kind() + b.name().map(n -> " " + q(n)).orElse("")));
    p.healthy().ifPresent(h -> out.line("healthy " + h));
    p.warmup().ifPresent(w -> out.line("warmup " + number(w)));
    p.rampup().ifPresent(r -> out.line("rampup " + onOff(r)));
    p.alt().ifPresent(a -> out.line("alt " + a));
    out.close();
  }

  /** Layered directors: the named directors, then what the virtual_server's director holds. */
  void layout(DirectorLayout l) {
    for (DirectorGroup g : l.groups()) {
      out.open("director " + q(g.name()));
      out.line("lb_algo " + g.scheduler().keyword());
      director(g.director());
      out.line("members " + g.members().stream().map(DumpText::q).collect(Collectors.joining(" ")));
      out.close();
    }
    if (!l.members().isEmpty()) {
      out.line("members " + l.members().stream().map(DumpText::q).collect(Collectors.joining(" ")));
    }
    l.altHeader().ifPresent(h -> out.line("alt_header " + q(h)));
  }
}
