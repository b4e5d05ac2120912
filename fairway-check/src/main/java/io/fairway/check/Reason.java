package io.fairway.check;

import java.util.Objects;

/**
 * Why a verdict changed: which checker decided it and what that checker saw.
 *
 * <p>Operators read this in logs ("HTTP_GET http://10.0.0.1:80/health: status 503, expected
 * 200-299") and, later, in the admin API, so {@code observation} is a short human sentence, never a
 * stack trace.
 *
 * @param checker the checker that decided, e.g. {@code "TCP_CHECK 10.0.0.1:80"}; {@code "init"} for
 *     the initial state and {@code "config"} for changes caused by configuration
 * @param observation what the checker saw, e.g. {@code "connection refused"}
 */
public record Reason(String checker, String observation) {
  public Reason {
    Objects.requireNonNull(checker, "checker");
    Objects.requireNonNull(observation, "observation");
  }

  @Override
  public String toString() {
    return checker + ": " + observation;
  }
}
