package io.fairway.check.checker;

import java.util.Locale;

/**
 * How a TCP_CHECK probes its real server; chosen once for the whole daemon ({@code fairway run
 * --tcp-check}).
 */
public enum TcpProbe {
  /**
   * A full handshake, as keepalived does: connect, then close with a reset. The real server's
   * application sees (and may log) an accepted connection.
   */
  CONNECT,
  /**
   * A SYN from a raw socket, answered by the server's SYN-ACK or reset; the local kernel resets the
   * half-open connection. About 60 % of the CPU per check of {@link #CONNECT}: on a quiet machine
   * 0.32-0.33x keepalived's against 0.52-0.55x, on a loaded one 0.56-0.60x against 0.89-0.90x
   * (docs/benchmarks-check.md). Falls back to it where it cannot work (see {@link
   * HalfOpenTcpChecker}).
   */
  HALF_OPEN;

  /** The command line's word: {@code connect} or {@code half-open}. */
  public String option() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  /**
   * Parses {@link #option()}'s words.
   *
   * @throws IllegalArgumentException for anything else, naming the valid words
   */
  public static TcpProbe parse(String word) {
    for (TcpProbe p : values()) {
      if (p.option().equalsIgnoreCase(word.trim())) {
        return p;
      }
    }
    throw new IllegalArgumentException(
        "'" + word + "' is not a TCP check mode (connect, half-open)");
  }
}
