package io.fairway.daemon;

import io.fairway.apply.AdminApplier;
import io.fairway.apply.Applier;
import io.fairway.apply.InitialState;
import io.fairway.apply.UnknownServerException;
import io.fairway.check.QuorumChanged;
import io.fairway.check.RealServerVerdict;
import io.fairway.check.ServerStateChanged;
import io.fairway.check.VerdictListener;
import io.fairway.check.VerdictSnapshot;
import io.fairway.check.WeightChanged;
import io.fairway.table.TableException;
import java.time.Clock;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Feeds the check engine's verdicts to the {@link Applier} and remembers each server's reason.
 *
 * <p>A verdict the table refuses is thrown back to the engine, which then does not commit it and
 * retries on the next check — keepalived's behaviour when perform_svr_state's kernel call fails.
 * Every transition is logged with its reason, because "why did this backend leave the pool at
 * 03:12" is the first question an operator asks.
 *
 * <p>After a reload a new engine announces an initial state for virtual servers the applier already
 * runs; they are reconciled rather than re-initialised (see {@link
 * #initialState(VerdictSnapshot)}).
 */
public final class ApplyingListener implements VerdictListener {
  private static final String TABLE_SAYS_WHY = "a TableException says why";

  private static final Logger LOG = LoggerFactory.getLogger("io.fairway.verdict");

  /** The applier behind the operators' admin settings: verdicts are recorded as the checkers'. */
  private final AdminApplier applier;

  private final Clock clock;
  private final EventHub events;
  private final Map<String, Map<String, Health>> health = new ConcurrentHashMap<>();

  public ApplyingListener(AdminApplier applier, Clock clock, EventHub events) {
    this.applier = applier;
    this.clock = clock;
    this.events = events;
  }

  /** The last verdict and reason of each real server, by virtual server and real server name. */
  public Map<String, Map<String, Health>> health() {
    Map<String, Map<String, Health>> copy = new HashMap<>();
    health.forEach((k, v) -> copy.put(k, Map.copyOf(v)));
    return copy;
  }

  /** Forgets virtual servers that are no longer configured. */
  public void retain(Set<String> virtualServers) {
    health.keySet().retainAll(virtualServers);
  }

  /**
   * A virtual server's state at engine start. New virtual servers are installed ({@link
   * Applier#init}). One the applier already runs (the engine was restarted by a reload) is
   * reconciled: servers the engine starts alive but the applier has down (new servers) are brought
   * in, weights are brought up to date, and quorum is re-evaluated — keepalived's
   * update_quorum_state with init after a reload.
   */
  @Override
  public void initialState(VerdictSnapshot status) {
    String vs = status.name();
    try {
      Map<String, Health> h = health.computeIfAbsent(vs, k -> new ConcurrentHashMap<>());
      if (!applier.initialized(vs)) {
        Set<String> alive = new HashSet<>();
        Map<String, Integer> weights = new HashMap<>();
        for (RealServerVerdict rs : status.servers()) {
          if (rs.alive()) {
            alive.add(rs.name());
          }
          weights.put(rs.name(), rs.weight());
          h.put(
              rs.name(),
              new Health(
                  rs.alive(),
                  rs.alive() ? "init: up" : "init: alpha, waiting for the first check",
                  clock.instant()));
        }
        applier.init(vs, new InitialState(alive, weights, status.quorumUp()));
        LOG.info(
            "{}: started, {} of {} real servers up, quorum {}",
            vs,
            alive.size(),
            status.servers().size(),
            status.quorumUp() ? "up" : "down");
        return;
      }
      for (RealServerVerdict rs : status.servers()) {
        applier.setWeight(vs, rs.name(), rs.weight());
        if (rs.alive() != applier.alive(vs, rs.name())) {
          applier.setAlive(vs, rs.name(), rs.alive());
        }
        h.putIfAbsent(
            rs.name(),
            new Health(
                rs.alive(),
                rs.alive() ? "reload: up" : "reload: waiting for the first check",
                clock.instant()));
      }
      h.keySet().retainAll(status.servers().stream().map(RealServerVerdict::name).toList());
      applier.quorum(vs, status.quorumUp());
    } catch (TableException e) {
      throw new TableFailure(vs + ": " + e.getMessage(), e);
    } catch (UnknownServerException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
  }

  @Override
  public void serverStateChanged(ServerStateChanged e) {
    try {
      applier.setWeight(e.virtualServer(), e.realServer(), e.effectiveWeight());
      applier.setAlive(e.virtualServer(), e.realServer(), e.alive());
    } catch (TableException ex) {
      LOG.warn(
          "{} {}: table refused {}: {}",
          e.virtualServer(),
          e.realServer(),
          e.alive() ? "UP" : "DOWN",
          ex.getMessage());
      throw new TableFailure(Objects.requireNonNull(ex.getMessage(), TABLE_SAYS_WHY), ex);
    } catch (UnknownServerException ex) {
      throw new IllegalStateException(ex.getMessage(), ex);
    }
    LOG.info(
        "{} {}: {} ({})", e.virtualServer(), e.realServer(), e.alive() ? "UP" : "DOWN", e.reason());
    events.publish(
        e.alive() ? EventKind.SERVER_UP : EventKind.SERVER_DOWN,
        e.virtualServer(),
        e.realServer(),
        e.reason().toString());
    health
        .computeIfAbsent(e.virtualServer(), k -> new ConcurrentHashMap<>())
        .put(e.realServer(), new Health(e.alive(), e.reason().toString(), clock.instant()));
  }

  @Override
  public void weightChanged(WeightChanged e) {
    try {
      applier.setWeight(e.virtualServer(), e.realServer(), e.weight());
    } catch (TableException ex) {
      LOG.warn(
          "{} {}: table refused weight {}: {}",
          e.virtualServer(),
          e.realServer(),
          e.weight(),
          ex.getMessage());
      throw new TableFailure(Objects.requireNonNull(ex.getMessage(), TABLE_SAYS_WHY), ex);
    } catch (UnknownServerException ex) {
      throw new IllegalStateException(ex.getMessage(), ex);
    }
    LOG.info(
        "{} {}: weight {} -> {} ({})",
        e.virtualServer(),
        e.realServer(),
        e.previousWeight(),
        e.weight(),
        e.reason());
    events.publish(
        EventKind.WEIGHT,
        e.virtualServer(),
        e.realServer(),
        "weight " + e.previousWeight() + " -> " + e.weight() + " (" + e.reason() + ")");
  }

  @Override
  public void quorumChanged(QuorumChanged e) {
    try {
      applier.quorum(e.virtualServer(), e.up());
    } catch (TableException ex) {
      // The quorum state is recorded; drift repair converges the table on its next pass.
      LOG.warn(
          "{}: table refused quorum {}: {}",
          e.virtualServer(),
          e.up() ? "gain" : "loss",
          ex.getMessage());
      return;
    } catch (UnknownServerException ex) {
      throw new IllegalStateException(ex.getMessage(), ex);
    }
    LOG.info(
        "{}: quorum {} (weight {} vs {}; {})",
        e.virtualServer(),
        e.up() ? "gained" : "lost",
        e.weightSum(),
        e.threshold(),
        e.reason());
  }

  /** A table call failed; unchecked so it crosses the listener interface to the engine. */
  public static final class TableFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    TableFailure(String message, TableException cause) {
      super(message, cause);
    }
  }
}
