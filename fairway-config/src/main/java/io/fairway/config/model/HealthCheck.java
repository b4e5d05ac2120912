package io.fairway.config.model;

import io.fairway.config.model.base.Location;
import java.time.Duration;

/**
 * A health checker of a real server. Every checker carries its effective timing (inherited from the
 * real server, the virtual server and the checker type's defaults, as keepalived resolves them), so
 * the check engine never has to look further than the checker itself.
 */
public sealed interface HealthCheck
    permits TcpCheck,
        HttpCheck,
        MiscCheck,
        DnsCheck,
        SmtpCheck,
        UdpCheck,
        PingCheck,
        FileCheck,
        BfdCheck {

  /** Where the checker block starts. */
  Location location();

  /** The resolved timing values. */
  CheckerTiming timing();

  /** The keepalived block name, e.g. {@code TCP_CHECK}. */
  String keyword();

  /** Interval between checks. */
  default Duration delayLoop() {
    return timing().delayLoop();
  }

  /** Connection timeout. */
  default Duration connectTimeout() {
    return timing().connectTimeout();
  }

  /** Failures tolerated before the checker goes down. */
  default int retry() {
    return timing().retry();
  }

  /** Interval between retries after a failure. */
  default Duration delayBeforeRetry() {
    return timing().delayBeforeRetry();
  }

  /** Upper bound of the random delay before the first check. */
  default Duration warmup() {
    return timing().warmup();
  }

  /** True if the checker starts in the failed state. */
  default boolean alpha() {
    return timing().alpha();
  }
}
