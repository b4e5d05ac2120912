package io.fairway.config.model;

import io.fairway.config.model.base.Location;

/** {@code TCP_CHECK}: success when a TCP connection completes within the connect timeout. */
public record TcpCheck(Location location, CheckerTiming timing, Endpoint endpoint)
    implements HealthCheck {
  @Override
  public String keyword() {
    return "TCP_CHECK";
  }
}
