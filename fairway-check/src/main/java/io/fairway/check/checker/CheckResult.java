package io.fairway.check.checker;

import java.util.OptionalLong;

/**
 * What one check attempt saw.
 *
 * @param success whether the attempt passed
 * @param observation a short human sentence ("connected in 3 ms", "status 503, expected 200-299")
 * @param weightDelta for dynamic checkers (MISC_CHECK with misc_dynamic, FILE_CHECK): this
 *     checker's new contribution to the real server's weight; empty for checkers that never move
 *     the weight
 */
public record CheckResult(boolean success, String observation, OptionalLong weightDelta) {

  public static CheckResult ok(String observation) {
    return new CheckResult(true, observation, OptionalLong.empty());
  }

  public static CheckResult fail(String observation) {
    return new CheckResult(false, observation, OptionalLong.empty());
  }

  public CheckResult withWeightDelta(long delta) {
    return new CheckResult(success, observation, OptionalLong.of(delta));
  }
}
