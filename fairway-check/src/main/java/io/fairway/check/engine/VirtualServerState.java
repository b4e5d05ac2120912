package io.fairway.check.engine;

import io.fairway.check.QuorumChanged;
import io.fairway.check.Reason;
import io.fairway.check.ServerStateChanged;
import io.fairway.check.VerdictListener;
import io.fairway.check.VerdictSnapshot;
import io.fairway.check.WeightChanged;
import io.fairway.check.checker.CheckResult;
import io.fairway.check.spec.VirtualServerSpec;
import io.fairway.os.script.ScriptSpec;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One virtual server's verdicts and quorum, keepalived's {@code update_svr_checker_state}, {@code
 * perform_svr_state}, {@code update_svr_wgt} and {@code update_quorum_state}. Every mutation
 * happens under this object's monitor, which is also what serialises the listener calls for the
 * virtual server.
 */
final class VirtualServerState {
  private static final Logger log = LoggerFactory.getLogger(VirtualServerState.class);

  final VirtualServerSpec spec;
  final List<RealServerState> servers;
  private final VerdictListener listener;
  private final io.fairway.os.script.ScriptExecutor scripts;
  private boolean quorumUp;

  VirtualServerState(
      VirtualServerSpec spec,
      VerdictListener listener,
      io.fairway.os.script.ScriptExecutor scripts) {
    this.spec = spec;
    this.servers = spec.realServers().stream().map(RealServerState::new).toList();
    this.listener = listener;
    this.scripts = scripts;
  }

  /**
   * Start: alpha servers dead, others alive; quorum evaluated as keepalived's {@code init=true}
   * pass does.
   */
  synchronized VerdictSnapshot init() {
    long ws = weightSum();
    long thr = spec.quorum() + spec.hysteresis();
    if (ws >= thr) {
      quorumUp = true;
      log.info("{}: starting with quorum up (weight {} >= {})", spec.name(), ws, thr);
      run(spec.quorumUp());
    } else if (spec.hasSorryServer()) {
      log.info("{}: starting with quorum down (weight {} < {})", spec.name(), ws, thr);
      run(spec.quorumDown());
    }
    VerdictSnapshot status = status();
    listener.initialState(status);
    return status;
  }

  synchronized VerdictSnapshot status() {
    return new VerdictSnapshot(
        spec.name(), quorumUp, weightSum(), servers.stream().map(RealServerState::status).toList());
  }

  long weightSum() {
    long sum = 0;
    for (RealServerState rs : servers) {
      if (rs.alive) {
        sum += rs.weight();
      }
    }
    return sum;
  }

  /**
   * Applies one check result and returns the step taken: when the checker should run next, and on
   * what.
   */
  synchronized CheckerState.Step onResult(RealServerState rs, CheckerState c, CheckResult result) {
    CheckerState.Step step = c.step(result.success());
    Reason reason = new Reason(c.name, result.observation());
    if (!result.success() && c.up) {
      logFailure(rs, c, step, result);
    }
    boolean changed = false;
    if (result.weightDelta().isPresent() && result.weightDelta().getAsLong() != c.weightDelta) {
      int before = rs.weight();
      c.weightDelta = result.weightDelta().getAsLong();
      int after = rs.weight();
      if (before != after) {
        log.info("{} {}: weight {} -> {} ({})", spec.name(), rs.spec.name(), before, after, reason);
        safely(
            () ->
                listener.weightChanged(
                    new WeightChanged(
                        spec.name(), rs.spec.name(), rs.alive, before, after, reason)));
        changed = rs.alive;
      }
    }
    switch (step.verdict()) {
      case UP -> {
        if (rs.failedCheckers() <= 1 && !rs.alive) {
          if (!setAlive(rs, true, reason)) {
            c.refused(step.verdict());
            break;
          }
          changed = true;
        }
        c.commit(step.verdict());
      }
      case DOWN -> {
        if (rs.failedCheckers() == 0 && rs.alive) {
          if (!setAlive(rs, false, reason)) {
            c.refused(step.verdict());
            break;
          }
          changed = true;
        }
        c.commit(step.verdict());
      }
      case STAY -> {
        // keepalived announces the initial state of an alpha or initially failing checker once.
        if (step.firstRun() && (c.alpha || !result.success()) && c.up == result.success()) {
          run(rs.alive ? rs.spec.notifyUp() : rs.spec.notifyDown());
        }
      }
    }
    if (changed) {
      updateQuorum(reason);
    }
    return step;
  }

  /**
   * A failed attempt of a checker that is still up. keepalived logs these only with
   * log_all_failures (its "TCP connection to ... failed." lines, check_tcp.c and the other
   * checkers), so an operator chasing an intermittent backend can see the failures that retries
   * absorbed; without it only the state change shows. Failures of a checker already down are never
   * logged: they are the expected result.
   */
  private void logFailure(
      RealServerState rs, CheckerState c, CheckerState.Step step, CheckResult result) {
    if (c.logAllFailures) {
      int attempt = step.verdict() == CheckerState.Verdict.STAY ? c.retryIt : c.attempts();
      log.info(
          "{} {}: {} failed (attempt {} of {}): {}",
          spec.name(),
          rs.spec.name(),
          c.name,
          attempt,
          c.attempts(),
          result.observation());
    } else if (step.verdict() == CheckerState.Verdict.STAY) {
      log.debug(
          "{} {}: {} failed, retry {}: {}",
          spec.name(),
          rs.spec.name(),
          c.name,
          c.retryIt,
          result.observation());
    }
  }

  private boolean setAlive(RealServerState rs, boolean alive, Reason reason) {
    var event = new ServerStateChanged(spec.name(), rs.spec.name(), alive, rs.weight(), reason);
    try {
      listener.serverStateChanged(event);
    } catch (RuntimeException e) {
      log.warn(
          "{} {}: could not mark {} ({}); will retry on the next check: {}",
          spec.name(),
          rs.spec.name(),
          alive ? "alive" : "dead",
          reason,
          e.toString());
      return false;
    }
    rs.alive = alive;
    log.info("{} {}: {} ({})", spec.name(), rs.spec.name(), alive ? "UP" : "DOWN", reason);
    run(alive ? rs.spec.notifyUp() : rs.spec.notifyDown());
    return true;
  }

  private void updateQuorum(Reason reason) {
    long ws = weightSum();
    long thr = quorumUp ? spec.quorum() - spec.hysteresis() : spec.quorum() + spec.hysteresis();
    if (!quorumUp && ws >= thr) {
      quorumUp = true;
      log.info("{}: gained quorum ({} <= weight {})", spec.name(), thr, ws);
      safely(() -> listener.quorumChanged(new QuorumChanged(spec.name(), true, ws, thr, reason)));
      run(spec.quorumUp());
    } else if (quorumUp && (ws == 0 || ws < thr)) {
      quorumUp = false;
      log.info("{}: lost quorum (weight {} < {})", spec.name(), ws, thr);
      safely(() -> listener.quorumChanged(new QuorumChanged(spec.name(), false, ws, thr, reason)));
      run(spec.quorumDown());
    }
  }

  private java.util.concurrent.CompletableFuture<?> run(@Nullable ScriptSpec script) {
    if (script != null && scripts != null) {
      return scripts.notify(script, spec.name());
    }
    return java.util.concurrent.CompletableFuture.completedFuture(null);
  }

  /**
   * Checking stops. With omega, keepalived tells the scripts: notify_down for every alive server,
   * then quorum_down if quorum was up. Returns when those scripts are done (or have been given up
   * on).
   */
  synchronized List<java.util.concurrent.CompletableFuture<?>> shutdown() {
    if (!spec.omega()) {
      return List.of();
    }
    List<java.util.concurrent.CompletableFuture<?>> done = new java.util.ArrayList<>();
    for (RealServerState rs : servers) {
      if (rs.alive) {
        done.add(run(rs.spec.notifyDown()));
      }
    }
    if (quorumUp) {
      done.add(run(spec.quorumDown()));
    }
    return done;
  }

  private void safely(Runnable r) {
    try {
      r.run();
    } catch (RuntimeException e) {
      log.warn("{}: verdict listener failed: {}", spec.name(), e.toString());
    }
  }
}
