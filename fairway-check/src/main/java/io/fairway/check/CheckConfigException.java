package io.fairway.check;

/**
 * A checker cannot be set up: a missing or non-executable script, an unreadable track file, an
 * unresolvable host. The message is one line naming the virtual server, real server and checker,
 * fit to show an operator as is.
 */
public final class CheckConfigException extends RuntimeException {
  public CheckConfigException(String message) {
    super(message);
  }
}
