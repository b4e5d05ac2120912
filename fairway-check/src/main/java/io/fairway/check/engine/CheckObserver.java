package io.fairway.check.engine;

import io.fairway.check.spec.CheckSpec;

/**
 * Told of every check attempt's outcome and how long it took, for metrics: exactly once per
 * attempt, whichever came first of the checker's answer and the engine's deadline. An attempt
 * abandoned at its deadline is reported as {@link Outcome#TIMEOUT} with the time it was given (as
 * measured, so at or just past the deadline); a checker that answers after that is not reported a
 * second time. Called on the checker's thread; must be quick.
 */
@FunctionalInterface
public interface CheckObserver {
  /** How an attempt ended. */
  enum Outcome {
    /** The checker answered: passed. */
    SUCCESS,
    /** The checker answered: failed (or threw). */
    FAILURE,
    /** No answer by the deadline: the engine abandoned the attempt and counted a failure. */
    TIMEOUT
  }

  void observed(
      String virtualServer, String realServer, CheckSpec spec, Outcome outcome, long nanos);

  /**
   * This observer for one checker of one real server: the engine binds once when it makes the
   * checker and calls the result on every attempt, so an observer that looks things up by name
   * (metrics by label) does it once per checker, not 10,000 times a second.
   */
  default Bound bind(String virtualServer, String realServer, CheckSpec spec) {
    return (outcome, nanos) -> observed(virtualServer, realServer, spec, outcome, nanos);
  }

  /** A {@link CheckObserver} bound to one checker. */
  @FunctionalInterface
  interface Bound {
    void observed(Outcome outcome, long nanos);

    /**
     * As {@link #observed(Outcome, long)}, with what the checker saw ({@code "status 503, expected
     * 200-299"}): the engine calls this one, so a status view can show the last attempt's code
     * without a second channel. Metrics need no text and keep the two-argument method.
     */
    default void observed(Outcome outcome, long nanos, String observation) {
      observed(outcome, nanos);
    }
  }

  /** Both observers, each told of every attempt ({@code first} before {@code second}). */
  static CheckObserver both(CheckObserver first, CheckObserver second) {
    return new CheckObserver() {
      @Override
      public void observed(
          String virtualServer, String realServer, CheckSpec spec, Outcome outcome, long nanos) {
        first.observed(virtualServer, realServer, spec, outcome, nanos);
        second.observed(virtualServer, realServer, spec, outcome, nanos);
      }

      @Override
      public Bound bind(String virtualServer, String realServer, CheckSpec spec) {
        Bound a = first.bind(virtualServer, realServer, spec);
        Bound b = second.bind(virtualServer, realServer, spec);
        return new Bound() {
          @Override
          public void observed(Outcome outcome, long nanos) {
            a.observed(outcome, nanos);
            b.observed(outcome, nanos);
          }

          @Override
          public void observed(Outcome outcome, long nanos, String observation) {
            a.observed(outcome, nanos, observation);
            b.observed(outcome, nanos, observation);
          }
        };
      }
    };
  }
}
