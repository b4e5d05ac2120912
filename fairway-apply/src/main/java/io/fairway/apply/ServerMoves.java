package io.fairway.apply;

import static io.fairway.apply.FanOut.destFor;
import static io.fairway.apply.FanOut.forEachService;

import io.fairway.table.TableException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real server going into and out of the table, keepalived's ADD_DEST and DEL_DEST with the
 * inhibit rewrite (ipvswrapper.c:569-577), in every service of its virtual server.
 */
final class ServerMoves {
  private static final Logger LOG = LoggerFactory.getLogger(ServerMoves.class);

  private final TolerantTable table;
  private final RampSteps ramps;

  ServerMoves(TolerantTable table, RampSteps ramps) {
    this.table = table;
    this.ramps = ramps;
  }

  /** keepalived's ADD_DEST for a real server, with the inhibit rewrite. */
  void in(VsState vs, RsState rs) throws TableException {
    if (rs.maint()) {
      return;
    }
    boolean serving = Tiers.serving(vs, rs) && vs.mayChangeServers();
    if (!serving) {
      ramps.stop(vs, rs);
    }
    int w = serving ? ramps.current(rs) : 0;
    rs.written(w);
    if (rs.present()) {
      if (!rs.config.inhibit()) {
        return;
      }
      LOG.info("{}: enabling {} (weight {})", vs.config.name(), rs.config.name(), w);
      forEachService(vs, s -> table.setDest(s.key(), destFor(s, rs.config.dest(), w)));
    } else {
      LOG.info("{}: adding {} (weight {})", vs.config.name(), rs.config.name(), w);
      forEachService(vs, s -> table.addDest(s.key(), destFor(s, rs.config.dest(), w)));
      rs.present(true);
    }
  }

  /**
   * keepalived's DEL_DEST for a real server: an inhibit server is drained to weight 0 unless the
   * removal is forced (the server left the configuration).
   */
  void out(VsState vs, RsState rs, boolean force) throws TableException {
    ramps.stop(vs, rs);
    if (rs.config.inhibit() && !force) {
      LOG.info("{}: disabling {} (weight 0)", vs.config.name(), rs.config.name());
      forEachService(vs, s -> table.setDest(s.key(), destFor(s, rs.config.dest(), 0)));
      rs.present(true);
      return;
    }
    LOG.info("{}: removing {}", vs.config.name(), rs.config.name());
    forEachService(vs, s -> table.delDest(s.key(), destFor(s, rs.config.dest(), 0).key()));
    rs.present(false);
  }

  /** Writes a present server's weight in every service. */
  void setWeight(VsState vs, RsState rs, int w) throws TableException {
    forEachService(vs, s -> table.setDest(s.key(), destFor(s, rs.config.dest(), w)));
  }

  /** A verdict of up after start: slow start, then in; as it was if the table refuses. */
  void up(VsState vs, RsState rs) throws TableException {
    RsState.Facts before = rs.facts();
    rs.alive(true);
    // Up after start: slow start (not at init, where every server would be "new").
    ramps.start(rs);
    try {
      // Before the add, so that a ramping table's first connection is already ramped.
      ramps.hand(vs, rs);
      in(vs, rs);
    } catch (TableException e) {
      rs.alive(false);
      rs.rampStart(before.rampStart());
      throw e;
    }
    ramps.mayHaveStarted(rs);
  }
}
