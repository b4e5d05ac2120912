package io.fairway.check.spec;

import java.net.InetAddress;
import java.util.Objects;

/** {@code PING_CHECK}: an ICMP echo request must be answered within {@code connect_timeout}. IPv4 only for now. */
public record PingCheckSpec(InetAddress target, CheckTiming timing) implements CheckSpec {
    public PingCheckSpec {
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(timing, "timing");
    }

    @Override
    public String describe() {
        return "PING_CHECK " + target.getHostAddress();
    }
}
