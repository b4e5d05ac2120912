package io.fairway.check.spec;

import java.net.InetSocketAddress;
import java.util.Objects;

/**
 * {@code TCP_CHECK}: success means a TCP connection completes within {@code connect_timeout}.
 *
 * @param source where the connection leaves from ({@code bindto}, {@code bind_port}, {@code
 *     bind_if}, {@code fwmark})
 */
public record TcpCheckSpec(InetSocketAddress target, CheckSource source, CheckTiming timing)
    implements CheckSpec {
  public TcpCheckSpec {
    Objects.requireNonNull(target, "target");
    Objects.requireNonNull(timing, "timing");
    source = source == null ? CheckSource.NONE : source;
  }

  /** A check from wherever the kernel chooses. */
  public TcpCheckSpec(InetSocketAddress target, CheckTiming timing) {
    this(target, CheckSource.NONE, timing);
  }

  @Override
  public String describe() {
    return "TCP_CHECK " + Targets.format(target) + source.describe();
  }
}
