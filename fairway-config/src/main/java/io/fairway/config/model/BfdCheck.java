package io.fairway.config.model;

import io.fairway.config.model.base.Location;

/**
 * {@code BFD_CHECK}: follows a BFD session's state instead of polling.
 *
 * @param name the {@code bfd_instance} followed
 */
public record BfdCheck(Location location, CheckerTiming timing, String name)
    implements HealthCheck {
  @Override
  public String keyword() {
    return "BFD_CHECK";
  }
}
