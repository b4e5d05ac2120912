package io.fairway.config;

import io.fairway.config.model.Announcement;
import io.fairway.config.model.VirtualServer;
import io.fairway.config.model.VirtualServerId;
import java.time.Duration;
import java.util.List;
import java.util.OptionalInt;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The announcing keywords (Fairway extensions): {@code announce_table}, {@code
 * announce_withdraw_delay} and {@code lvs_sloppy_tcp} in {@code global_defs}, {@code announce} in a
 * {@code virtual_server}.
 */
final class AnnounceParser {
  static final Set<String> GLOBAL =
      Set.of("announce_table", "announce_withdraw_delay", "lvs_sloppy_tcp");

  /** The longest withdraw delay: a stop that waits longer is a hung stop. */
  static final long MAX_WITHDRAW_DELAY_SECONDS = 300;

  private final Values v;

  AnnounceParser(Values v) {
    this.v = v;
  }

  /** One of {@link #GLOBAL}, applied to {@code a}. */
  Announcement global(Node n, Announcement a) {
    switch (n.keyword()) {
      case "announce_table" -> {
        Long t = v.args(n, 1, 1) ? v.number(n, 1, 1, Values.INT32_MAX, "table") : null;
        if (t == null) {
          return a;
        }
        if (t >= 253 && t <= 255) {
          v.error(n, "announce_table " + t + " is the kernel's own (default, main or local)");
          return a;
        }
        return new Announcement(
            OptionalInt.of(t.intValue()),
            a.withdrawDelay(),
            a.lvsSloppyTcp(),
            Values.loc(n),
            a.sloppyTcpAt());
      }
      case "announce_withdraw_delay" -> {
        Duration d = v.args(n, 1, 1) ? v.timer(n, 1, true) : null;
        if (d == null) {
          return a;
        }
        if (d.toSeconds() > MAX_WITHDRAW_DELAY_SECONDS) {
          v.error(
              n,
              "announce_withdraw_delay: at most "
                  + MAX_WITHDRAW_DELAY_SECONDS
                  + " seconds (a stop that waits longer looks hung)");
          return a;
        }
        return new Announcement(a.table(), d, a.lvsSloppyTcp(), a.tableAt(), a.sloppyTcpAt());
      }
      default -> // lvs_sloppy_tcp
      {
        return v.args(n, 0, 0)
            ? new Announcement(a.table(), a.withdrawDelay(), true, a.tableAt(), Values.loc(n))
            : a;
      }
    }
  }

  /** {@code announce} in a virtual_server: true if accepted. */
  boolean virtualServer(Node n, VirtualServerId.@Nullable Address address) {
    if (!v.args(n, 0, 0)) {
      return false;
    }
    if (address == null) {
      v.error(n, "announce needs a virtual_server with an address (not fwmark or group)");
      return false;
    }
    return true;
  }

  /** Every announcing service needs the table to announce in: checked once the file is read. */
  static void check(Diagnostics diags, Announcement a, List<VirtualServer> servers) {
    if (a.enabled()) {
      return;
    }
    for (VirtualServer vs : servers) {
      if (vs.announce()) {
        diags.error(
            vs.location().file(),
            vs.location().line(),
            "virtual_server " + vs.name() + " has 'announce' but global_defs has no announce_table",
            "announce");
      }
    }
  }
}
