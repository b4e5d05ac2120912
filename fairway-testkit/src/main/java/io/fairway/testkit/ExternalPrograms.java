package io.fairway.testkit;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Supplier;
import org.junit.jupiter.api.Assumptions;

/**
 * The one way a test says "this needs program X" (and user-mode Linux, which is one), for every
 * module (each has fairway-testkit in test scope).
 *
 * <p>Why: on a developer's machine a missing varnishd or keepalived is a reason to skip, but CI
 * installs every program the tests talk to ({@code .ci/run}), so there a missing one means a failed
 * install, and a skip would turn the oracle tests into silent passes. Under {@code CI=true} a
 * missing program therefore fails the test; elsewhere it skips it.
 */
public final class ExternalPrograms {
  /** CI installs every program the tests need: missing is an error there. */
  public static final boolean CI = "true".equalsIgnoreCase(System.getenv("CI"));

  private ExternalPrograms() {}

  /**
   * The first of {@code paths} that is executable; if none is, skips the calling test, or fails it
   * under {@code CI=true}.
   */
  public static Path require(String program, String... paths) {
    for (String p : paths) {
      if (Files.isExecutable(Path.of(p))) {
        return Path.of(p);
      }
    }
    missing(program + " is not installed (looked for " + String.join(", ", paths) + ")");
    // missing() throws: it aborts or fails the test.
    throw new AssertionError("not reached");
  }

  /** Skips, or under {@code CI=true} fails, the calling test unless {@code present}. */
  public static void requireThat(boolean present, Supplier<String> whatIsMissing) {
    if (!present) {
      missing(whatIsMissing.get());
    }
  }

  /**
   * Skips the calling test, or fails it under {@code CI=true}: {@code why} says what is missing.
   */
  public static void missing(String why) {
    missing(why, CI);
  }

  static void missing(String why, boolean ci) {
    if (ci) {
      throw new AssertionError(
          why + " (CI=true: a test whose program is missing fails; .ci/run installs it)");
    }
    Assumptions.abort(why);
  }
}
