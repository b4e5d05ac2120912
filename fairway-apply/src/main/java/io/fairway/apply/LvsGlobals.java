package io.fairway.apply;

import io.fairway.config.model.GlobalDefs;
import io.fairway.table.Timeouts;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * keepalived's global LVS housekeeping keywords, as {@link LvsHousekeeping} acts on them.
 *
 * @param flush {@code lvs_flush}: flush the whole table at startup, before the first service goes
 *     in
 * @param onStop {@code lvs_flush_on_stop [VS]}: what is removed at shutdown
 * @param timeouts {@code lvs_timeouts}: the given timeouts, 0 for those not given; all 0 when the
 *     keyword is absent
 */
public record LvsGlobals(boolean flush, GlobalDefs.FlushOnStop onStop, Timeouts timeouts) {
  /** No keyword given: keepalived's defaults. */
  public static final LvsGlobals NONE =
      new LvsGlobals(false, GlobalDefs.FlushOnStop.NONE, new Timeouts(0, 0, 0));

  public LvsGlobals {
    Objects.requireNonNull(onStop, "onStop");
    Objects.requireNonNull(timeouts, "timeouts");
  }

  /** The keywords of a parsed {@code global_defs}. */
  public static LvsGlobals from(GlobalDefs g) {
    return new LvsGlobals(
        g.lvsFlush(),
        g.lvsFlushOnStop(),
        new Timeouts(
            seconds(g.lvsTimeoutTcp()), seconds(g.lvsTimeoutTcpFin()), seconds(g.lvsTimeoutUdp())));
  }

  private static int seconds(Optional<Duration> d) {
    return d.map(x -> (int) Math.min(Integer.MAX_VALUE, x.toSeconds())).orElse(0);
  }
}
