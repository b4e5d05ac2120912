package io.fairway.check.engine;

import io.fairway.check.RealServerVerdict;
import io.fairway.check.spec.RealServerSpec;
import java.util.List;

/** A real server's verdict: alive when no checker is down; weight = configured + dynamic deltas. */
final class RealServerState {
  final RealServerSpec spec;
  final List<CheckerState> checkers;
  boolean alive;

  RealServerState(RealServerSpec spec) {
    this.spec = spec;
    this.checkers = spec.checkers().stream().map(CheckerState::new).toList();
    this.alive = failedCheckers() == 0;
  }

  int failedCheckers() {
    int n = 0;
    for (CheckerState c : checkers) {
      if (!c.up) {
        n++;
      }
    }
    return n;
  }

  /**
   * Configured weight plus every checker's contribution, unclamped (keepalived keeps it as int64).
   */
  long effectiveWeight() {
    long w = spec.weight();
    for (CheckerState c : checkers) {
      w += c.weightDelta;
    }
    return w;
  }

  /**
   * The weight a table can carry: keepalived's {@code real_weight}, clamped to {@code
   * 0..INT32_MAX}.
   */
  int weight() {
    return clamp(effectiveWeight());
  }

  static int clamp(long w) {
    return (int) Math.max(0, Math.min(Integer.MAX_VALUE, w));
  }

  RealServerVerdict status() {
    return new RealServerVerdict(spec.name(), alive, weight());
  }
}
