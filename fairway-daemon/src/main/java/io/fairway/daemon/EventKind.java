package io.fairway.daemon;

import java.util.Locale;

/** What an event on the stream is about. */
public enum EventKind {
  SERVER_UP,
  SERVER_DOWN,
  WEIGHT,
  QUORUM_UP,
  QUORUM_DOWN,
  SORRY_IN,
  SORRY_OUT,
  RELOAD_OK,
  RELOAD_REFUSED,
  ADMIN,
  /** An address announced or withdrawn ({@code announce_table}), or announce on/off. */
  ANNOUNCE;

  /** The name on the wire: {@code server_up}, {@code reload_refused}, ... */
  public String wire() {
    return name().toLowerCase(Locale.ROOT);
  }
}
