package io.fairway.config.model;

import io.fairway.config.model.base.Location;

/**
 * {@code FILE_CHECK}: follows a top-level {@code track_file}. The file's integer value times {@code
 * weight} (negated with {@code reverse}) is added to the real server's weight; with weight 0 any
 * non-zero value is a failure.
 *
 * @param trackFile the name of the {@link TrackFile} followed
 * @param weight the multiplier (default: the track_file's weight)
 * @param reverse negate the product
 */
public record FileCheck(
    Location location, CheckerTiming timing, String trackFile, int weight, boolean reverse)
    implements HealthCheck {
  @Override
  public String keyword() {
    return "FILE_CHECK";
  }
}
