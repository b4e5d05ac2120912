package io.fairway.daemon;

import io.fairway.config.model.base.Addresses;
import io.fairway.vrrp.view.InstanceStatus;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;

/**
 * The VRRP part of {@code fairway status}: one line per instance with its state, effective
 * priority, the master it follows (itself when master) and since when it is in that state.
 */
public final class VrrpStatusFormat {
  private VrrpStatusFormat() {}

  public static String render(List<InstanceStatus> instances) {
    if (instances.isEmpty()) {
      return "";
    }
    StringBuilder out = new StringBuilder();
    out.append(
        String.format(
            Locale.ROOT,
            "%-16s %-10s %-6s %-8s %-4s %-28s %s%n",
            "VRRP instance",
            "Interface",
            "VRID",
            "State",
            "Prio",
            "Master",
            "Since"));
    for (InstanceStatus s : instances) {
      out.append(
          String.format(
              Locale.ROOT,
              "%-16s %-10s %-6d %-8s %-4d %-28s %s%n",
              s.name(),
              s.interfaceName(),
              s.virtualRouterId(),
              s.state(),
              s.priority(),
              s.master().map(Addresses::format).orElse("-"),
              DateTimeFormatter.ISO_INSTANT.format(
                  s.since().truncatedTo(java.time.temporal.ChronoUnit.MILLIS))));
    }
    return out.toString();
  }
}
