package io.fairway.check.spec;

import java.net.InetSocketAddress;
import java.util.Objects;

/** {@code TCP_CHECK}: success means a TCP connection completes within {@code connect_timeout}. */
public record TcpCheckSpec(InetSocketAddress target, CheckTiming timing) implements CheckSpec {
    public TcpCheckSpec {
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(timing, "timing");
    }

    @Override
    public String describe() {
        return "TCP_CHECK " + Targets.format(target);
    }
}
