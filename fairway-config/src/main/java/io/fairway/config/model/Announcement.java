package io.fairway.config.model;

import io.fairway.config.model.base.Location;
import java.time.Duration;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * How this node announces its virtual addresses to the routers (Fairway extensions in {@code
 * global_defs}): a host route per announced address in a kernel routing table, which BIRD or FRR
 * export over BGP.
 *
 * @param table {@code announce_table N}: the kernel routing table; empty = no announcing
 * @param withdrawDelay {@code announce_withdraw_delay SECONDS} (default 2 s): how long a stopping
 *     node waits between withdrawing its routes and closing its listeners
 * @param lvsSloppyTcp {@code lvs_sloppy_tcp}: set IPVS's {@code sloppy_tcp} sysctl, so a TCP
 *     connection moved to this director mid-flight is taken up (kernel plane)
 * @param tableAt where {@code announce_table} was written, for the daemon's start errors
 * @param sloppyTcpAt where {@code lvs_sloppy_tcp} was written
 */
public record Announcement(
    OptionalInt table,
    Duration withdrawDelay,
    boolean lvsSloppyTcp,
    Location tableAt,
    Location sloppyTcpAt) {
  public static final Duration DEFAULT_WITHDRAW_DELAY = Duration.ofSeconds(2);

  /** Not announcing. */
  public static final Announcement NONE =
      new Announcement(
          OptionalInt.empty(), DEFAULT_WITHDRAW_DELAY, false, Location.NONE, Location.NONE);

  public Announcement {
    Objects.requireNonNull(table, "table");
    Objects.requireNonNull(withdrawDelay, "withdrawDelay");
    Objects.requireNonNull(tableAt, "tableAt");
    Objects.requireNonNull(sloppyTcpAt, "sloppyTcpAt");
  }

  public boolean enabled() {
    return table.isPresent();
  }
}
