package io.fairway.proxy.http;

/**
 * A message the proxy refuses to forward, with the status the client gets and a one-line reason for
 * the log. Thrown only inside the parsers; it carries no stack trace because malformed input from
 * the network is expected, not a bug.
 */
final class BadMessage extends Exception {
  final int status;

  /**
   * The message, kept apart from {@link #getMessage}, which may be null for all the compiler knows.
   */
  final String reason;

  BadMessage(int status, String reason) {
    super(reason, null, false, false);
    this.status = status;
    this.reason = reason;
  }
}
