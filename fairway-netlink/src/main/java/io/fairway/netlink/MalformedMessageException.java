package io.fairway.netlink;

/** A netlink message that does not parse: a length that runs past the end, a missing attribute. */
public final class MalformedMessageException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public MalformedMessageException(String message) {
    super(message);
  }
}
