package io.fairway.check.spec;

import java.net.InetAddress;
import java.util.Objects;

/**
 * {@code PING_CHECK}: an ICMP (IPv4) or ICMPv6 echo request must be answered within {@code
 * connect_timeout}.
 *
 * @param source where the echo request leaves from ({@code bindto}, {@code bind_if}, {@code
 *     fwmark}; a {@code bind_port} becomes the echo identifier, as on any ping socket)
 */
public record PingCheckSpec(InetAddress target, CheckSource source, CheckTiming timing)
    implements CheckSpec {
  public PingCheckSpec {
    Objects.requireNonNull(target, "target");
    Objects.requireNonNull(timing, "timing");
    source = source == null ? CheckSource.NONE : source;
  }

  /** A ping from wherever the kernel chooses. */
  public PingCheckSpec(InetAddress target, CheckTiming timing) {
    this(target, CheckSource.NONE, timing);
  }

  @Override
  public String describe() {
    return "PING_CHECK " + CheckSource.text(target) + source.describe();
  }
}
