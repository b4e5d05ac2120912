package io.fairway.check.spec;

import java.net.InetSocketAddress;
import java.util.Objects;

/** {@code SMTP_CHECK}: expect a 220 greeting, send {@code HELO}, expect 250, send {@code QUIT}. */
public record SmtpCheckSpec(InetSocketAddress target, String heloName, CheckTiming timing) implements CheckSpec {
    /** keepalived's default HELO name. */
    public static final String DEFAULT_HELO = "smtpchecker.keepalived.org";

    public SmtpCheckSpec {
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(timing, "timing");
        heloName = heloName == null ? DEFAULT_HELO : heloName;
    }

    @Override
    public String describe() {
        return "SMTP_CHECK " + Targets.format(target);
    }
}
