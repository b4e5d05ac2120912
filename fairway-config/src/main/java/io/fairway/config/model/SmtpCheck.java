package io.fairway.config.model;

import io.fairway.config.model.base.Location;

/**
 * {@code SMTP_CHECK}: expects a 220 banner, sends HELO and expects 250, then QUIT.
 *
 * @param heloName the HELO argument (default {@code smtpchecker.keepalived.org})
 */
public record SmtpCheck(Location location, CheckerTiming timing, Endpoint endpoint, String heloName)
    implements HealthCheck {
  /** keepalived's default HELO name. */
  public static final String DEFAULT_HELO = "smtpchecker.keepalived.org";

  @Override
  public String keyword() {
    return "SMTP_CHECK";
  }
}
