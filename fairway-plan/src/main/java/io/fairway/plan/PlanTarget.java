package io.fairway.plan;

import org.jspecify.annotations.Nullable;

/**
 * A data plane that reads more of the plan than the table's services and destinations carry (the
 * userspace proxy: mode, key source, director parameters, members' names, idents and decimal
 * weights, sorry server, idle timeouts). The daemon hands it every plan it is about to run.
 */
public interface PlanTarget {

  /**
   * Whether this data plane can run the plan; changes nothing.
   *
   * @return {@code null} when it can, else the one-line reason it cannot
   */
  @Nullable String refusal(Plan plan);

  /**
   * Runs the plan: services already running switch to their new settings at once (listeners,
   * connections and members that stay keep their state), services added later read it.
   */
  void apply(Plan plan);
}
