package io.fairway.apply;

import io.fairway.table.Service;
import io.fairway.table.TableException;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a verdict does to the table, keepalived's perform_svr_state and update_svr_wgt: one real
 * server up or down, its weight, its maintenance, its slow start, and a virtual server's quorum,
 * each ordered against the backup tiers and the sorry server. {@link Applier} looks the servers up,
 * decides whether anything changed and holds the table around these; here is only the order of the
 * moves.
 */
final class Verdicts {
  // Under the applier's name, as before these moved out of it: operators filter its lines by it.
  private static final Logger LOG = LoggerFactory.getLogger(Applier.class);

  private final TolerantTable table;
  private final RampSteps ramps;
  private final ServerMoves moves;
  private final SorryMoves sorry;

  Verdicts(TolerantTable table, RampSteps ramps, ServerMoves moves, SorryMoves sorry) {
    this.table = table;
    this.ramps = ramps;
    this.moves = moves;
    this.sorry = sorry;
  }

  /** A virtual server's first install: its services, then every real server that starts up. */
  void init(VsState vs, InitialState initial) throws TableException {
    for (Service s : vs.config.services()) {
      LOG.info("Adding service {} ({})", s.key(), vs.config.name());
      table.addService(s);
    }
    vs.initialized(true);
    vs.quorumUp(initial.quorumUp());
    if (!vs.quorumUp() && vs.config.sorryServer() != null && !vs.sorryServing()) {
      LOG.info("{}: starting with quorum down", vs.config.name());
      sorry.in(vs);
    }
    for (RsState rs : vs.servers.values()) {
      rs.alive(initial.alive().contains(rs.config.name()));
      rs.weight(Math.max(0, initial.weights().getOrDefault(rs.config.name(), rs.weight())));
    }
    // Every verdict first: whether a backup stands by depends on the lower tiers' verdicts.
    for (RsState rs : vs.servers.values()) {
      if ((Tiers.serving(vs, rs) && vs.mayChangeServers())
          || (rs.config.inhibit() && !rs.present())) {
        moves.in(vs, rs);
      }
    }
    sorry.standBy(vs);
  }

  /** A real server's new verdict; the table is untouched while the sorry server serves. */
  void alive(String vsName, VsState vs, RsState rs, boolean alive) throws TableException {
    String rsName = rs.config.name();
    if (vs.initialized() && vs.mayChangeServers()) {
      Set<RsState> standing = Tiers.standing(vs);
      if (alive) {
        if (!standing.contains(rs)) {
          moves.up(vs, rs);
        }
        rs.alive(true);
        // The backups this puts back in standby go out after it went in.
        Tiers.follow(vs, standing, moves);
      } else {
        // The backups this leaves without a lower tier go in before it goes out.
        rs.alive(false);
        try {
          Tiers.follow(vs, standing, moves);
          if (!standing.contains(rs)) {
            moves.out(vs, rs, false);
          }
        } catch (TableException e) {
          rs.alive(true);
          throw e;
        }
      }
    } else if (vs.initialized()) {
      LOG.info(
          "{}: {} is {} (sorry server serving, table unchanged)",
          vsName,
          rsName,
          alive ? "up" : "down");
    }
    rs.alive(alive);
  }

  /** A real server's new effective weight, already clamped. */
  void weight(String vsName, VsState vs, RsState rs, int clamped) throws TableException {
    String rsName = rs.config.name();
    int old = rs.weight();
    // To or from 0, a lower-tier server stops or starts holding the backups out.
    boolean tiers =
        vs.tiered
            && vs.initialized()
            && vs.mayChangeServers()
            && (old == 0) != (clamped == 0)
            && rs.alive()
            && !rs.maint();
    Set<RsState> standing = tiers ? Tiers.standing(vs) : Set.of();
    rs.weight(clamped);
    if (tiers && clamped == 0) {
      try {
        Tiers.follow(vs, standing, moves); // the backups in before this goes to 0
      } catch (TableException e) {
        rs.weight(old);
        throw e;
      }
    }
    if (vs.initialized() && rs.present() && Tiers.serving(vs, rs) && vs.mayChangeServers()) {
      // A ramping server follows its ramp towards the new target.
      int w = ramps.current(rs);
      LOG.info(
          "{}: weight of {} {} -> {}{}",
          vsName,
          rsName,
          old,
          clamped,
          w == clamped ? "" : " (slow start: " + w + " now)");
      try {
        moves.setWeight(vs, rs, w);
        rs.written(w);
      } catch (TableException e) {
        rs.weight(old);
        throw e;
      }
    }
    if (tiers && clamped > 0) {
      Tiers.follow(vs, standing, moves); // the backups out once this is back
    }
  }

  /** A quorum transition: the sorry server in before the pool goes out, out after it is back. */
  void quorum(String vsName, VsState vs, boolean up) throws TableException {
    vs.quorumUp(up);
    LOG.info("{}: quorum {}", vsName, up ? "gained" : "lost");
    if (!vs.initialized() || vs.config.sorryServer() == null) {
      return;
    }
    table.begin();
    try {
      sorry.swap(vs, up);
    } finally {
      table.commit();
    }
  }

  /** An operator's maintenance on or off for a real server. */
  void maint(VsState vs, RsState rs, boolean maint) throws TableException {
    Set<RsState> standing = Tiers.standing(vs);
    rs.maint(maint);
    if (!vs.initialized()) {
      return;
    }
    if (maint) {
      if (vs.mayChangeServers()) {
        Tiers.follow(vs, standing, moves); // backups in before it goes out
      }
      if (rs.present()) {
        moves.out(vs, rs, true);
      }
    } else {
      if (!rs.present() && DesiredTable.weight(vs, rs) != null) {
        moves.in(vs, rs);
      }
      if (vs.mayChangeServers()) {
        Tiers.follow(vs, standing, moves);
      }
    }
  }

  /**
   * Starts a real server's slow start now, from weight 1.
   *
   * @return whether a ramp started
   */
  boolean slowStart(String vsName, VsState vs, RsState rs) throws TableException {
    String rsName = rs.config.name();
    if (!vs.initialized()
        || !rs.present()
        || !Tiers.serving(vs, rs)
        || !vs.mayChangeServers()
        || rs.config.slowStart().isZero()
        || (!table.ramps() && rs.weight() <= 1)) {
      return false;
    }
    ramps.start(rs);
    ramps.hand(vs, rs);
    int w = ramps.current(rs);
    LOG.info(
        "{}: {} slow start over {} (weight {} of {}{})",
        vsName,
        rsName,
        rs.config.slowStart(),
        w,
        rs.weight(),
        table.ramps() ? ", in the scheduler" : "");
    moves.setWeight(vs, rs, w);
    rs.written(w);
    ramps.mayHaveStarted(rs);
    return true;
  }
}
