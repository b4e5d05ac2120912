package io.fairway.check.spec;

import java.net.InetSocketAddress;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * {@code UDP_CHECK}: send {@code payload}. Without {@code requireReply}, silence until the timeout
 * is success and only an ICMP error (port unreachable) fails, as in keepalived. With it, a reply of
 * {@code minReplyLength..maxReplyLength} bytes must arrive whose first bytes match the hex pattern,
 * where an {@code X} nibble matches anything.
 *
 * @param payloadHex hex bytes to send; empty sends an empty datagram
 * @param requireReply hex pattern (X/x = wildcard nibble), or {@code null} to not require a reply
 * @param source where the datagram leaves from ({@code bindto}, {@code bind_port}, {@code bind_if},
 *     {@code fwmark})
 */
public record UdpCheckSpec(
    InetSocketAddress target,
    CheckSource source,
    String payloadHex,
    @Nullable String requireReply,
    int minReplyLength,
    int maxReplyLength,
    CheckTiming timing)
    implements CheckSpec {
  public UdpCheckSpec {
    Objects.requireNonNull(target, "target");
    Objects.requireNonNull(timing, "timing");
    source = source == null ? CheckSource.NONE : source;
    payloadHex = payloadHex == null ? "" : payloadHex;
    if (!payloadHex.matches("([0-9a-fA-F]{2})*")) {
      throw new IllegalArgumentException("UDP_CHECK payload must be an even number of hex digits");
    }
    if (requireReply != null && !requireReply.matches("([0-9a-fA-FxX]{2})*")) {
      throw new IllegalArgumentException("UDP_CHECK require_reply must be hex digits or X");
    }
    if (minReplyLength < 0 || maxReplyLength < minReplyLength) {
      throw new IllegalArgumentException("UDP_CHECK reply length bounds are inconsistent");
    }
  }

  /** A check from wherever the kernel chooses. */
  public UdpCheckSpec(
      InetSocketAddress target,
      String payloadHex,
      @Nullable String requireReply,
      int minReplyLength,
      int maxReplyLength,
      CheckTiming timing) {
    this(
        target, CheckSource.NONE, payloadHex, requireReply, minReplyLength, maxReplyLength, timing);
  }

  @Override
  public String describe() {
    return "UDP_CHECK " + Targets.format(target) + source.describe();
  }
}
