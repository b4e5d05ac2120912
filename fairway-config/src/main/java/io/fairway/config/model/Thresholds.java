package io.fairway.config.model;

/**
 * A real server's connection thresholds, {@code uthreshold} and {@code lthreshold}: above the upper
 * one the server takes no new connections until it falls below the lower one. {@link #NONE} when
 * neither is written.
 *
 * @param upper {@code uthreshold}, 0 for none
 * @param lower {@code lthreshold}, 0 for none; never above upper
 */
public record Thresholds(long upper, long lower) {
  /** No thresholds. */
  public static final Thresholds NONE = new Thresholds(0, 0);
}
