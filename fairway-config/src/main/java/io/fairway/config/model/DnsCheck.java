package io.fairway.config.model;

import io.fairway.config.model.base.Location;

/**
 * {@code DNS_CHECK}: a UDP query; success is a reply with the same id, QR set and RCODE 0.
 *
 * @param type the query type, upper case (default {@code SOA})
 * @param name the query name (default {@code .})
 */
public record DnsCheck(
    Location location, CheckerTiming timing, Endpoint endpoint, String type, String name)
    implements HealthCheck {
  @Override
  public String keyword() {
    return "DNS_CHECK";
  }
}
