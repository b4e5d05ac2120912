package io.fairway.check.checker;

import io.netty.channel.ConnectTimeoutException;
import io.netty.handler.timeout.ReadTimeoutException;
import java.net.ConnectException;
import java.net.PortUnreachableException;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

/** Turns exceptions into the short sentences an operator reads in a verdict reason. */
final class Failures {
  private Failures() {}

  static String describe(Throwable t, Duration timeout) {
    if (t instanceof ConnectTimeoutException) {
      return "connect timed out after " + timeout.toMillis() + " ms";
    }
    if (t instanceof ReadTimeoutException) {
      return "no answer within " + timeout.toMillis() + " ms";
    }
    if (t instanceof PortUnreachableException) {
      return "port unreachable (ICMP)";
    }
    if (t instanceof SocketOptions.SourceException) {
      return Objects.requireNonNull(t.getMessage(), "a SourceException always says why");
    }
    String m = t.getMessage();
    if (t instanceof ConnectException
        && m != null
        && m.toLowerCase(Locale.ROOT).contains("refused")) {
      return "connection refused";
    }
    Throwable root = t;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String rm = root.getMessage();
    return root.getClass().getSimpleName() + (rm == null ? "" : ": " + rm);
  }
}
