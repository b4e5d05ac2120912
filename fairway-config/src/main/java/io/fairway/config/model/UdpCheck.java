package io.fairway.config.model;

import io.fairway.config.model.base.Location;
import java.util.Optional;

/**
 * {@code UDP_CHECK}: sends a datagram. Without {@code require_reply} only an ICMP error fails; with
 * it, a reply within the length bounds must match the pattern.
 *
 * @param payload lower-case hex of the datagram to send (may be empty)
 * @param requireReply lower-case hex pattern the reply must start with ({@code x} nibbles are
 *     wildcards), if a reply is required
 * @param minReplyLength minimum reply length (default 0)
 * @param maxReplyLength maximum reply length (default 255)
 */
public record UdpCheck(
    Location location,
    CheckerTiming timing,
    Endpoint endpoint,
    String payload,
    Optional<String> requireReply,
    int minReplyLength,
    int maxReplyLength)
    implements HealthCheck {
  @Override
  public String keyword() {
    return "UDP_CHECK";
  }
}
