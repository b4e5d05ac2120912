package io.fairway.daemon;

import java.nio.file.Path;

/** Reads a configuration file into what the daemon runs. */
@FunctionalInterface
public interface Loader {

  /**
   * Loads the file.
   *
   * @throws LoadException with a one-line {@code FILE:LINE: message} when the file is invalid
   */
  Loaded load(Path file) throws LoadException;

  /** A configuration that cannot run; the message is one line naming the file and line. */
  final class LoadException extends Exception {
    private static final long serialVersionUID = 1L;

    public LoadException(String message) {
      super(message);
    }

    public LoadException(String message, Throwable cause) {
      super(message, cause);
    }

    @Override
    public String getMessage() {
      return java.util.Objects.requireNonNull(super.getMessage(), "the constructors set it");
    }
  }
}
