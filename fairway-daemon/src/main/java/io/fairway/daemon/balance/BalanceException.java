package io.fairway.daemon.balance;

/**
 * A virtual server cannot be balanced as configured; the message is one {@code FILE:LINE: ...}
 * line.
 */
public final class BalanceException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public BalanceException(String message) {
    super(message);
  }
}
