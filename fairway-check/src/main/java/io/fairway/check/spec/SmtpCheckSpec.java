package io.fairway.check.spec;

import java.net.InetSocketAddress;
import java.util.Objects;

/**
 * {@code SMTP_CHECK}: expect a 220 greeting, send {@code HELO}, expect 250, send {@code QUIT}.
 *
 * @param source where the connection leaves from ({@code bindto}, {@code bind_port}, {@code
 *     bind_if}, {@code fwmark})
 */
public record SmtpCheckSpec(
    InetSocketAddress target, CheckSource source, String heloName, CheckTiming timing)
    implements CheckSpec {
  /** keepalived's default HELO name. */
  public static final String DEFAULT_HELO = "smtpchecker.keepalived.org";

  public SmtpCheckSpec {
    Objects.requireNonNull(target, "target");
    Objects.requireNonNull(timing, "timing");
    source = source == null ? CheckSource.NONE : source;
    heloName = heloName == null ? DEFAULT_HELO : heloName;
  }

  /** A check from wherever the kernel chooses. */
  public SmtpCheckSpec(InetSocketAddress target, String heloName, CheckTiming timing) {
    this(target, CheckSource.NONE, heloName, timing);
  }

  @Override
  public String describe() {
    return "SMTP_CHECK " + Targets.format(target) + source.describe();
  }
}
