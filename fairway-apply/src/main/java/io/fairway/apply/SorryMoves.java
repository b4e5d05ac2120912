package io.fairway.apply;

import static io.fairway.apply.FanOut.destFor;
import static io.fairway.apply.FanOut.forEachService;

import io.fairway.table.Dest;
import io.fairway.table.Service;
import io.fairway.table.ServiceKey;
import io.fairway.table.TableException;
import java.util.Objects;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sorry server: in while quorum is lost, standing by at weight 0 when it is inhibit or takes
 * overflow, and raised per service while that service's pool is full ({@code
 * overflow_to_sorry_server}).
 */
final class SorryMoves {
  private static final Logger LOG = LoggerFactory.getLogger(SorryMoves.class);

  private final TolerantTable table;
  private final ServerMoves moves;

  SorryMoves(TolerantTable table, ServerMoves moves) {
    this.table = table;
    this.moves = moves;
  }

  /** The sorry server's weight in one service: serving (quorum lost) or overflowing, else 0. */
  static int weight(VsState vs, Service s) {
    boolean on = vs.sorryServing() || vs.overflowing().contains(s.key());
    return on ? sorryOf(vs).weight() : 0;
  }

  /**
   * The sorry server of a virtual server that has one: every move here is for such a virtual server
   * (quorum lost, overflow or standing by all require one), so its absence is a bug.
   */
  private static Dest sorryOf(VsState vs) {
    return Objects.requireNonNull(vs.config.sorryServer(), "sorry server");
  }

  /**
   * A quorum transition: the sorry server goes in before the real servers come out and comes out
   * after they go back in, so there is no window without any destination.
   */
  void swap(VsState vs, boolean up) throws TableException {
    if (up && vs.sorryServing()) {
      for (RsState rs : vs.servers.values()) {
        if (Tiers.serving(vs, rs)) {
          moves.in(vs, rs);
        }
      }
      out(vs, false);
    } else if (!up && !vs.sorryServing()) {
      in(vs);
      for (RsState rs : vs.servers.values()) {
        if (Tiers.serving(vs, rs)) {
          moves.out(vs, rs, false);
        }
      }
    }
  }

  void in(VsState vs) throws TableException {
    Dest sorry = sorryOf(vs);
    LOG.info(
        "{}: {} sorry server {}",
        vs.config.name(),
        vs.sorryPresent() ? "enabling" : "adding",
        sorry.key());
    if (vs.sorryPresent()) {
      forEachService(vs, s -> table.setDest(s.key(), destFor(s, sorry, sorry.weight())));
    } else {
      forEachService(vs, s -> table.addDest(s.key(), destFor(s, sorry, sorry.weight())));
    }
    vs.sorryPresent(true);
    vs.sorryServing(true);
    // Quorum loss owns the sorry server now; overflow is decided afresh when quorum returns.
    vs.overflowing(Set.of());
  }

  /**
   * The sorry server stops serving. Overflow starts again from "the pool has room": the real
   * servers have just come back, and the counters read while they were out say nothing about them.
   */
  void out(VsState vs, boolean force) throws TableException {
    Dest sorry = sorryOf(vs);
    vs.overflowing(Set.of());
    if (vs.config.sorryStandsBy() && !force) {
      LOG.info("{}: disabling sorry server {} (weight 0)", vs.config.name(), sorry.key());
      forEachService(vs, s -> table.setDest(s.key(), destFor(s, sorry, 0)));
    } else {
      LOG.info("{}: removing sorry server {}", vs.config.name(), sorry.key());
      forEachService(vs, s -> table.delDest(s.key(), destFor(s, sorry, 0).key()));
      vs.sorryPresent(false);
    }
    vs.sorryServing(false);
  }

  /**
   * An inhibit sorry server sits in the table at weight 0 from startup (ipwrapper.c:661-673); so
   * does one that takes overflow, so that overflowing is a weight change.
   */
  void standBy(VsState vs) throws TableException {
    if (vs.config.sorryStandsBy() && !vs.sorryPresent()) {
      Dest sorry = sorryOf(vs);
      forEachService(vs, s -> table.addDest(s.key(), destFor(s, sorry, 0)));
      vs.sorryPresent(true);
    }
  }

  /** See {@link Applier#overflow}. */
  boolean overflow(VsState vs, ServiceKey key, boolean full) throws TableException {
    if (!vs.config.overflow() || !vs.initialized() || !vs.sorryPresent() || vs.sorryServing()) {
      return false;
    }
    Dest sorry = sorryOf(vs);
    Service service = null;
    for (Service s : vs.config.services()) {
      if (s.key().equals(key)) {
        service = s;
      }
    }
    if (service == null || full == vs.overflowing().contains(key)) {
      return false;
    }
    table.setDest(key, destFor(service, sorry, full ? sorry.weight() : 0));
    vs.overflowing(key, full);
    if (full) {
      LOG.info(
          "{}: {}: every real server is full or drained; new connections to the sorry "
              + "server {}",
          vs.config.name(),
          key,
          sorry.key());
    } else {
      LOG.info(
          "{}: {}: a real server has room again; new connections to the pool",
          vs.config.name(),
          key);
    }
    return true;
  }
}
