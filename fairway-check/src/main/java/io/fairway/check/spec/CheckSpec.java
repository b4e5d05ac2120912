package io.fairway.check.spec;

/**
 * One checker block of a real server ({@code TCP_CHECK}, {@code HTTP_GET}, ...), with every default
 * resolved. Each variant is a small immutable record; the engine turns it into a running checker.
 */
public sealed interface CheckSpec
    permits TcpCheckSpec,
        HttpCheckSpec,
        MiscCheckSpec,
        DnsCheckSpec,
        SmtpCheckSpec,
        UdpCheckSpec,
        PingCheckSpec,
        FileCheckSpec {

  /** When and how often this checker runs. */
  CheckTiming timing();

  /** A short name for logs and verdict reasons, e.g. {@code "TCP_CHECK 10.0.0.1:80"}. */
  String describe();

  /**
   * The same checker with other timing (a reload uses it to start a kept server's checkers down).
   */
  default CheckSpec withTiming(CheckTiming t) {
    if (this instanceof TcpCheckSpec s) {
      return new TcpCheckSpec(s.target(), s.source(), t);
    } else if (this instanceof HttpCheckSpec s) {
      return s.toBuilder().timing(t).build();
    } else if (this instanceof MiscCheckSpec s) {
      return new MiscCheckSpec(s.script(), s.timeout(), s.dynamic(), t);
    } else if (this instanceof DnsCheckSpec s) {
      return new DnsCheckSpec(s.target(), s.source(), s.type(), s.name(), t);
    } else if (this instanceof SmtpCheckSpec s) {
      return new SmtpCheckSpec(s.target(), s.source(), s.heloName(), t);
    } else if (this instanceof UdpCheckSpec s) {
      return new UdpCheckSpec(
          s.target(),
          s.source(),
          s.payloadHex(),
          s.requireReply(),
          s.minReplyLength(),
          s.maxReplyLength(),
          t);
    } else if (this instanceof PingCheckSpec s) {
      return new PingCheckSpec(s.target(), s.source(), t);
    }
    FileCheckSpec s = (FileCheckSpec) this;
    return new FileCheckSpec(s.name(), s.file(), s.weight(), s.reverse(), t);
  }

  /**
   * Whether two specs check the same thing the same way, whatever their timing: keepalived's
   * per-checker {@code compare()}, which decides whether a reload carries a checker's state over.
   */
  default boolean sameCheckAs(CheckSpec other) {
    return other != null && withTiming(other.timing()).equals(other);
  }
}
