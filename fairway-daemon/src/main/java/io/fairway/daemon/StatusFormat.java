package io.fairway.daemon;

import io.fairway.apply.VirtualServerStatus;
import io.fairway.apply.VirtualServerStatus.RealServerStatus;
import io.fairway.table.Dest;
import io.fairway.table.DestEntry;
import io.fairway.table.Endpoints;
import io.fairway.table.ForwardingMethod;
import io.fairway.table.Service;
import io.fairway.table.ServiceEntry;
import io.fairway.table.ServiceFlag;
import io.fairway.table.ServiceKey;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Renders {@code fairway status}: the table as {@code ipvsadm -Ln} shows it, read back from the
 * forwarder (so counters are real), with each server's health and the reason for it. Servers that
 * are configured but not in the table (down, or withdrawn while the sorry server serves) are listed
 * too, since "why is this backend missing" is the question status exists to answer.
 */
final class StatusFormat {
  private StatusFormat() {}

  static String render(
      List<ServiceEntry> table,
      List<VirtualServerStatus> vss,
      Map<String, Map<String, Health>> health) {
    return render(table, vss, health, io.fairway.plan.Plan.EMPTY);
  }

  /**
   * As above, with a line per virtual server saying how the running plan selects (algorithm, typed
   * parameters, key source): the choice {@code fairway pick} predicts.
   */
  static String render(
      List<ServiceEntry> table,
      List<VirtualServerStatus> vss,
      Map<String, Map<String, Health>> health,
      io.fairway.plan.Plan plan) {
    Map<ServiceKey, ServiceEntry> byKey = new HashMap<>();
    table.forEach(e -> byKey.put(e.service().key(), e));
    StringBuilder out = new StringBuilder();
    out.append("Prot LocalAddress:Port Scheduler Flags\n");
    out.append(
        String.format(
            Locale.ROOT,
            "  -> %-28s %-7s %-6s %-10s %-10s %-5s %s%n",
            "RemoteAddress:Port",
            "Forward",
            "Weight",
            "ActiveConn",
            "InActConn",
            "State",
            "Reason"));
    for (VirtualServerStatus vs : vss) {
      Map<String, Health> h = health.getOrDefault(vs.name(), Map.of());
      for (Service configured : vs.services()) {
        ServiceEntry entry = byKey.get(configured.key());
        service(out, vs, configured, entry, plan);
        Map<String, Boolean> shown = new HashMap<>();
        if (entry != null) {
          for (DestEntry d : entry.dests()) {
            out.append(dest(vs, d, h, shown));
          }
        }
        for (RealServerStatus rs : vs.servers()) {
          if (!shown.containsKey(rs.name())) {
            out.append(absent(vs, rs, h.get(rs.name()), entry != null));
          }
        }
      }
    }
    return out.toString();
  }

  /** A service's header, with its virtual server's quorum and sorry server and how it selects. */
  private static void service(
      StringBuilder out,
      VirtualServerStatus vs,
      Service configured,
      @Nullable ServiceEntry entry,
      io.fairway.plan.Plan plan) {
    Service s = entry == null ? configured : entry.service();
    out.append(serviceLine(s));
    out.append("  # ").append(vs.name()).append(": quorum ").append(vs.quorumUp() ? "up" : "down");
    if (vs.sorryServing()) {
      out.append(", sorry server serving");
    }
    if (entry == null) {
      out.append(", NOT IN TABLE");
    }
    out.append('\n');
    plan.service(vs.name())
        .ifPresent(
            p ->
                out.append("  # ")
                    .append(vs.name())
                    .append(": selects by ")
                    .append(p.selection().describe())
                    .append(", key ")
                    .append(p.key())
                    .append('\n'));
  }

  /**
   * A destination read back: a configured real server (noted in {@code shown}), the sorry server,
   * or one nobody configured.
   */
  private static String dest(
      VirtualServerStatus vs, DestEntry d, Map<String, Health> h, Map<String, Boolean> shown) {
    RealServerStatus rs = match(vs, d.dest());
    String state;
    String reason;
    if (rs != null) {
      shown.put(rs.name(), true);
      Health hh = h.get(rs.name());
      state = rs.standby() ? "backup" : rs.alive() ? "up" : "down";
      reason = rs.name() + (hh == null ? "" : ": " + hh.reason()) + rampNote(rs);
    } else if (vs.sorryServer() != null && sameHost(vs.sorryServer(), d.dest())) {
      // The weight read back tells overflow (overflow_to_sorry_server raised it because
      // the pool is full) from standing by.
      boolean overflowing = !vs.sorryServing() && d.dest().weight() > 0;
      state = vs.sorryServing() ? "sorry" : overflowing ? "overflow" : "idle";
      reason =
          overflowing ? "sorry server (pool full: new connections overflow here)" : "sorry server";
    } else {
      state = "?";
      reason = "not configured (drift)";
    }
    return destLine(d.dest(), d.activeConnections(), d.inactiveConnections(), state, reason);
  }

  /** A configured real server that is not in the table, and why. */
  private static String absent(
      VirtualServerStatus vs, RealServerStatus rs, @Nullable Health hh, boolean serviceInTable) {
    return String.format(
        Locale.ROOT,
        "  -- %-28s %-7s %-6s %-10s %-10s %-5s %s%n",
        Endpoints.format(rs.dest().address(), rs.dest().port()),
        "-",
        "-",
        "-",
        "-",
        rs.standby() ? "backup" : rs.alive() ? "up" : "down",
        rs.name() + (hh == null ? "" : ": " + hh.reason()) + missing(vs, rs, serviceInTable));
  }

  /**
   * Why an alive server is not in the table, as it is: its service is not there, the sorry server
   * serves instead, or it is simply missing (refused by the table, or removed behind Fairway's
   * back, which drift repair then puts back). Status never claims a state that does not exist.
   */
  private static String missing(
      VirtualServerStatus vs, RealServerStatus rs, boolean serviceInTable) {
    if (!rs.alive()) {
      return "";
    }
    if (rs.standby()) {
      return " (standby: a server of a lower SRV priority is up)";
    }
    if (!serviceInTable) {
      return " (not in the table: its service is not)";
    }
    if (vs.sorryServing()) {
      return " (withdrawn: sorry server serving)";
    }
    return " (missing from the table)";
  }

  /** A service header as ipvsadm -Ln prints it. */
  static String serviceLine(Service s) {
    StringBuilder b = new StringBuilder();
    ServiceKey k = s.key();
    if (k.isFwmark()) {
      b.append("FWM  ")
          .append(k.fwmark())
          .append(k.family() == io.fairway.table.AddressFamily.INET6 ? " IPv6" : "");
    } else {
      b.append(
          String.format(
              Locale.ROOT,
              "%-4s %s",
              Objects.requireNonNull(k.protocol(), "not a fwmark: a protocol").name(),
              Endpoints.format(
                  Objects.requireNonNull(k.address(), "not a fwmark: an address"), k.port())));
    }
    b.append(' ').append(s.scheduler());
    if (s.flags().contains(ServiceFlag.PERSISTENT)) {
      b.append(" persistent ").append(s.timeout());
      int full = k.family() == io.fairway.table.AddressFamily.INET6 ? 128 : 32;
      if (s.netmask() != full) {
        b.append(" mask ").append(s.netmask());
      }
    }
    if (s.flags().contains(ServiceFlag.ONE_PACKET)) {
      b.append(" ops");
    }
    return b.toString();
  }

  static String destLine(Dest d, int active, int inactive, String state, String reason) {
    return String.format(
        Locale.ROOT,
        "  -> %-28s %-7s %-6d %-10d %-10d %-5s %s%n",
        Endpoints.format(d.address(), d.port()),
        d.forwarding().ipvsadmName(),
        d.weight(),
        active,
        inactive,
        state,
        reason);
  }

  private static @Nullable RealServerStatus match(VirtualServerStatus vs, Dest d) {
    for (RealServerStatus rs : vs.servers()) {
      if (sameHost(rs.dest(), d)) {
        return rs;
      }
    }
    return null;
  }

  /** Same address, and same port unless the port is the service's (DR/TUN). */
  private static boolean sameHost(Dest configured, Dest actual) {
    return configured.address().equals(actual.address())
        && (configured.port() == actual.port() || configured.forwarding() != ForwardingMethod.MASQ);
  }

  /**
   * A ramping server's note: on the kernel the weight stepped into the table; in the userspace
   * scheduler the fraction of its share it takes now, with the same function the scheduler uses
   * ({@link io.fairway.director.SlowStart#units}), and that fraction of its weight.
   */
  static String rampNote(RealServerStatus rs) {
    if (!rs.ramping()) {
      return "";
    }
    if (!rs.rampsInScheduler()) {
      return " (slow start: weight " + rs.rampWeight() + " of " + rs.weight() + ")";
    }
    int units =
        io.fairway.director.SlowStart.units(
            rs.ramp().elapsed().toNanos(), rs.ramp().duration().toNanos());
    return String.format(
        java.util.Locale.ROOT,
        " (slow start: %d%% of its share, weight %s of %d, %s of %s)",
        units,
        effective(rs.weight(), units),
        rs.weight(),
        Durations.format(rs.ramp().elapsed()),
        Durations.format(rs.ramp().duration()));
  }

  /** {@code weight × units / 100}, printed without trailing zeros. */
  static String effective(double weight, int units) {
    return java.math.BigDecimal.valueOf(weight)
        .multiply(java.math.BigDecimal.valueOf(units))
        .movePointLeft(2)
        .stripTrailingZeros()
        .toPlainString();
  }
}
