package io.fairway.check.engine;

import io.fairway.check.spec.CheckSpec;

/**
 * Told of every check attempt's result and how long it took, for metrics. Called on the checker's
 * thread; must be quick. An attempt that never answers and that the engine abandons at its
 * deadline is not reported here (its failure is in the verdicts).
 */
@FunctionalInterface
public interface CheckObserver {
  void observed(String virtualServer, String realServer, CheckSpec spec, boolean success, long nanos);
}
