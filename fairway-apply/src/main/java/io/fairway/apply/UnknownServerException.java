package io.fairway.apply;

import org.jspecify.annotations.Nullable;

/**
 * A verdict named a virtual or real server this applier was not configured with.
 *
 * <p>It means the framework and the applier disagree about the configuration — typically an event
 * that raced a reload — and is reported rather than guessed at.
 */
public final class UnknownServerException extends Exception {
  private static final long serialVersionUID = 1L;

  public UnknownServerException(String vsName, @Nullable String rsName) {
    super(
        "apply: unknown "
            + (rsName == null
                ? "virtual server " + vsName
                : "real server " + rsName + " in virtual server " + vsName));
  }
}
