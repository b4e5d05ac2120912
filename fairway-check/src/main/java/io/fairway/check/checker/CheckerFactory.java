package io.fairway.check.checker;

import io.fairway.check.spec.CheckSpec;
import io.fairway.check.spec.RealServerSpec;
import io.fairway.check.spec.VirtualServerSpec;

/** Turns a checker spec into a running checker; swapped for a scripted fake in rule tests. */
@FunctionalInterface
public interface CheckerFactory {

  /**
   * Creates the checker, validating what can be validated at load.
   *
   * @throws io.fairway.check.CheckConfigException if the checker cannot work (missing script,
   *     unreadable file)
   */
  Checker create(VirtualServerSpec vs, RealServerSpec rs, CheckSpec spec);
}
