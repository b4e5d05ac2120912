package io.fairway.vrrp.packet;

/** A packet that is not a valid VRRP advertisement; the message says which check failed. */
public final class MalformedAdvertException extends Exception {
  private static final long serialVersionUID = 1L;

  /** Which check failed, for error counters by kind. */
  public enum Kind {
    TRUNCATED,
    VERSION,
    TYPE,
    LENGTH,
    CHECKSUM,
    AUTH_TYPE,
    FAMILY,
    INTERVAL,
    IP_HEADER
  }

  private final Kind kind;

  public MalformedAdvertException(Kind kind, String message) {
    super(message, null, false, false);
    this.kind = kind;
  }

  public Kind kind() {
    return kind;
  }
}
