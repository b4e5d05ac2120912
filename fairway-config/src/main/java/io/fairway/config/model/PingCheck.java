package io.fairway.config.model;

import io.fairway.config.model.base.Location;

/** {@code PING_CHECK}: an ICMP echo over an unprivileged ping socket. */
public record PingCheck(Location location, CheckerTiming timing, Endpoint endpoint)
    implements HealthCheck {
  @Override
  public String keyword() {
    return "PING_CHECK";
  }
}
