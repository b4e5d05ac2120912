package io.fairway.apply;

import static io.fairway.apply.FanOut.destFor;
import static io.fairway.apply.FanOut.forEachService;

import io.fairway.table.Ramp;
import io.fairway.table.RampTarget;
import io.fairway.table.Service;
import io.fairway.table.TableException;
import java.time.Duration;
import java.util.Collection;
import java.util.Objects;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Slow start ramps: when a real server's ramp starts and ends, the weight it has on the way, and
 * telling a table that ramps in its own scheduler ({@link RampTarget}) where the ramp is. The
 * ramp's state is in the server's {@link RsState}; this is the arithmetic and the table calls.
 */
final class RampSteps {
  private static final Logger LOG = LoggerFactory.getLogger(RampSteps.class);

  private final TolerantTable table;
  private final LongSupplier nanos;

  /** Told when a ramp starts, so a periodic step runs only while ramps do. */
  private Runnable started = () -> {};

  RampSteps(TolerantTable table, LongSupplier nanos) {
    this.table = table;
    this.nanos = nanos;
  }

  void onStart(Runnable r) {
    started = Objects.requireNonNull(r, "r");
  }

  long now() {
    return nanos.getAsLong();
  }

  boolean inTable() {
    return table.ramps();
  }

  void start(RsState rs) {
    rs.rampStart(rs.config.slowStart().isZero() ? -1 : nanos.getAsLong());
  }

  /** Ends a ramp, telling a ramping table. */
  void stop(VsState vs, RsState rs) throws TableException {
    if (rs.ramping()) {
      rs.rampStart(-1);
      hand(vs, rs);
    }
  }

  void mayHaveStarted(RsState rs) {
    if (rs.ramping()) {
      started.run();
    }
  }

  /**
   * Tells a ramping table where the server's ramp is (or that it has none): once per service, by
   * the destination's key there. Nothing for a table that is given stepped weights.
   */
  void hand(VsState vs, RsState rs) throws TableException {
    if (!table.ramps()) {
      return;
    }
    Ramp r =
        !rs.ramping()
            ? Ramp.NONE
            : new Ramp(
                Duration.ofNanos(Math.max(0, nanos.getAsLong() - rs.rampStart())),
                rs.config.slowStart());
    for (Service s : vs.config.services()) {
      table.ramp(s.key(), destFor(s, rs.config.dest(), 0).key(), r);
    }
  }

  /**
   * The weight the server should have now: its weight, or its ramp's step (its weight once the
   * ramp's time is up). No side effect: only {@link #step} ends a ramp, after writing its last
   * step, so a status read in between cannot skip it.
   */
  int current(RsState rs) {
    if (!rs.ramping() || table.ramps()) {
      return rs.weight();
    }
    return SlowStartSteps.weight(
        rs.weight(), nanos.getAsLong() - rs.rampStart(), rs.config.slowStart().toNanos());
  }

  private boolean over(RsState rs) {
    if (!rs.ramping()) {
      return false;
    }
    long elapsed = nanos.getAsLong() - rs.rampStart();
    long duration = rs.config.slowStart().toNanos();
    // The table's own ramp ends with its time; a stepped one also once its last step is written.
    return table.ramps()
        ? elapsed >= duration
        : SlowStartSteps.done(rs.weight(), elapsed, duration);
  }

  /** Steps every ramping server to where its ramp is now; how many changed weight. */
  int step(Collection<VsState> vss) throws TableException {
    int changed = 0;
    for (VsState vs : vss) {
      if (!vs.initialized() || !vs.mayChangeServers()) {
        continue;
      }
      for (RsState rs : vs.servers.values()) {
        if (!rs.ramping() || !rs.present() || !Tiers.serving(vs, rs)) {
          continue;
        }
        int w = current(rs);
        if (w != rs.written()) {
          forEachService(vs, s -> table.setDest(s.key(), destFor(s, rs.config.dest(), w)));
          rs.written(w);
          changed++;
        }
        // Over only once its last step is in the table.
        if (over(rs)) {
          rs.rampStart(-1);
          LOG.info("{}: {} slow start done (weight {})", vs.config.name(), rs.config.name(), w);
        }
      }
    }
    return changed;
  }

  static boolean active(Collection<VsState> vss) {
    for (VsState vs : vss) {
      for (RsState rs : vs.servers.values()) {
        if (rs.ramping()) {
          return true;
        }
      }
    }
    return false;
  }

  /** Whether a ramp is under way as status shows it: serving, and its time not up in the table. */
  boolean showing(RsState rs, long now) {
    return rs.ramping()
        && rs.present()
        && rs.alive()
        && !(table.ramps() && now - rs.rampStart() >= rs.config.slowStart().toNanos());
  }
}
