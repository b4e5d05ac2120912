package io.fairway.check.spec;

/**
 * One checker block of a real server ({@code TCP_CHECK}, {@code HTTP_GET}, ...), with every default resolved.
 * Each variant is a small immutable record; the engine turns it into a running checker.
 */
public sealed interface CheckSpec
        permits TcpCheckSpec, HttpCheckSpec, MiscCheckSpec, DnsCheckSpec, SmtpCheckSpec, UdpCheckSpec,
        PingCheckSpec, FileCheckSpec {

    /** When and how often this checker runs. */
    CheckTiming timing();

    /** A short name for logs and verdict reasons, e.g. {@code "TCP_CHECK 10.0.0.1:80"}. */
    String describe();
}
