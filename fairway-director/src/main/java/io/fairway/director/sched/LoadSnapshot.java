package io.fairway.director.sched;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The {@code fairway pick --conns NAME=N,...} load snapshot: lets an operator ask which server a
 * new connection would get <em>right now</em>, given how many connections each server has.
 *
 * <p>{@code NAME=N} means N active connections; {@code NAME=A/I} gives active and inactive
 * separately (lc and wlc weigh them 256:1, the thresholds count both). Servers not named have none.
 * The OVERLOAD flag is set as if the connections had just arrived, so a server at or above its
 * {@code uthreshold} takes no new connection.
 *
 * @param loads server name to {active, inactive}
 */
public record LoadSnapshot(Map<String, int[]> loads) {

  /** Parses {@code NAME=N[/I],...}; names are as printed ({@code name}, or {@code IP:PORT}). */
  public static LoadSnapshot parse(String text) {
    Map<String, int[]> m = new LinkedHashMap<>();
    if (text == null || text.isBlank()) return new LoadSnapshot(m);
    for (String item : text.split(",")) {
      String it = item.strip();
      int eq = it.lastIndexOf('=');
      if (eq <= 0 || eq == it.length() - 1) {
        throw new IllegalArgumentException(
            "--conns: '" + it + "' is not NAME=N or NAME=ACTIVE/INACTIVE");
      }
      String name = it.substring(0, eq).strip();
      String value = it.substring(eq + 1).strip();
      int slash = value.indexOf('/');
      int active = count(it, slash < 0 ? value : value.substring(0, slash));
      int inactive = slash < 0 ? 0 : count(it, value.substring(slash + 1));
      if (m.put(name, new int[] {active, inactive}) != null) {
        throw new IllegalArgumentException("--conns: '" + name + "' is given twice");
      }
    }
    return new LoadSnapshot(m);
  }

  private static int count(String item, String s) {
    try {
      int n = Integer.parseInt(s.strip());
      if (n < 0) throw new NumberFormatException();
      return n;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "--conns: '" + item + "': '" + s + "' is not a connection count >= 0");
    }
  }

  /**
   * Sets every server's counts (unnamed ones to zero). Unknown names are an error listing the known
   * ones.
   */
  public void applyTo(SchedService service) {
    for (String name : loads.keySet()) {
      if (service.byName(name) == null) {
        StringBuilder known = new StringBuilder();
        for (SchedDest d : service.dests())
          known.append(known.length() == 0 ? "" : " ").append(d.name());
        if (service.sorryServer() != null) known.append(" ").append(service.sorryServer().name());
        throw new IllegalArgumentException(
            "--conns: no real server named '" + name + "' (known: " + known + ")");
      }
    }
    for (SchedDest d : service.dests()) set(d);
    if (service.sorryServer() != null) set(service.sorryServer());
    // Thresholds changed the flags the scheduler reads, not its tables: nothing to rebuild.
  }

  private void set(SchedDest d) {
    int[] l = loads.getOrDefault(d.name(), new int[] {0, 0});
    d.setLoad(l[0], l[1]);
  }
}
