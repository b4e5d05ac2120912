package io.fairway.daemon.discovery;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The last resolution of every {@code real_server_dns} block as {@code fairway status} prints it
 * and as {@code GET /api/v1/dns} answers it. The servers themselves are shown with the written ones
 * (they are real servers of the model); this says where they came from and how the name server last
 * answered.
 */
public final class DnsStatus {
  private DnsStatus() {}

  /**
   * One block in the JSON API.
   *
   * @param block its key: virtual server, DNS name and type
   * @param virtualServer the virtual server's name
   * @param name the DNS name asked
   * @param type SRV, A or AAAA
   * @param location where the block is written (FILE:LINE)
   * @param lastResolution when the last resolution ended (ISO-8601, UTC)
   * @param result how it ended: found, gone (NXDOMAIN or no record) or failed
   * @param answers how many servers it gave
   * @param error why it failed or was gone; empty when it found servers
   * @param lastFound when the kept answer came (null before any)
   * @param servers the real servers the running model took from the answer, canonical order
   * @param kept how many servers the kept answer holds (more than {@code servers} when {@code
   *     max_servers} cut it or some are of the other family)
   * @param draining the real servers that left the answer: at weight 0 until {@code hold} has
   *     passed, then removed
   * @param resolutions how many resolutions ended how
   */
  public record Block(
      String block,
      String virtualServer,
      String name,
      String type,
      String location,
      @Nullable String lastResolution,
      String result,
      int answers,
      String error,
      @Nullable String lastFound,
      List<String> servers,
      int kept,
      List<String> draining,
      Map<String, Long> resolutions) {}

  /** {@code {"blocks": [...]}}. */
  public record View(List<Block> blocks) {}

  /** The JSON view of the blocks' states. */
  public static View view(List<Discovery.BlockState> states) {
    List<Block> out = new ArrayList<>();
    for (Discovery.BlockState s : states) {
      String[] k = splitKey(s.key());
      Map<String, Long> counts = new LinkedHashMap<>();
      for (Answer.Outcome o : Answer.Outcome.values()) {
        counts.put(wire(o), s.resolutions().getOrDefault(o, 0L));
      }
      out.add(
          new Block(
              s.key(),
              k[0],
              k[1],
              k[2],
              s.location(),
              iso(s.lastResolution()),
              wire(s.lastAnswer().outcome()),
              s.lastAnswer().members().size(),
              s.lastAnswer().error(),
              iso(s.lastFound()),
              s.used(),
              s.members().size(),
              s.draining(),
              counts));
    }
    return new View(out);
  }

  /** The text {@code fairway status} adds after the table; empty without a block. */
  public static String text(List<Discovery.BlockState> states) {
    if (states.isEmpty()) {
      return "";
    }
    StringBuilder b = new StringBuilder("\nreal_server_dns:\n");
    for (Block x : view(states).blocks()) {
      b.append("  ")
          .append(x.name())
          .append(' ')
          .append(x.type())
          .append(" (virtual_server ")
          .append(x.virtualServer())
          .append(", ")
          .append(x.location())
          .append(")\n    last resolution ")
          .append(x.lastResolution())
          .append(": ")
          .append(x.result());
      if (x.result().equals("found")) {
        b.append(' ').append(x.answers()).append(x.answers() == 1 ? " server" : " servers");
      } else {
        b.append(" (").append(x.error()).append(')');
      }
      b.append("\n    servers (")
          .append(x.servers().size())
          .append(" of ")
          .append(x.kept())
          .append(" kept")
          .append(x.lastFound() == null ? "" : ", found " + x.lastFound())
          .append("): ")
          .append(x.servers().isEmpty() ? "none" : String.join(", ", x.servers()))
          .append('\n');
      if (!x.draining().isEmpty()) {
        b.append("    draining (left the answer; weight 0 until removed): ")
            .append(String.join(", ", x.draining()))
            .append('\n');
      }
    }
    return b.toString();
  }

  static String wire(Answer.Outcome o) {
    return o.name().toLowerCase(Locale.ROOT);
  }

  private static @Nullable String iso(@Nullable Instant t) {
    return t == null ? null : t.toString();
  }

  /** The key's three parts; the virtual server's name may hold spaces, the others not. */
  private static String[] splitKey(String key) {
    int type = key.lastIndexOf(' ');
    int name = key.lastIndexOf(' ', type - 1);
    return new String[] {
      key.substring(0, name), key.substring(name + 1, type), key.substring(type + 1)
    };
  }
}
