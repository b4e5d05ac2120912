package io.fairway.check.checker;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Supplier;
import org.junit.jupiter.api.Assumptions;

/**
 * The one way this module's tests say "this needs program X". A copy of fairway-ipvs's
 * {@code io.fairway.ipvs.uml.ExternalPrograms} (this module does not have that test-jar): under
 * {@code CI=true} a missing program fails the test, because CI installs every program the tests
 * talk to ({@code .ci/run}) and a skip would hide a failed install; elsewhere it skips.
 */
final class ExternalPrograms {
  /** CI installs every program the tests need: missing is an error there. */
  static final boolean CI = "true".equalsIgnoreCase(System.getenv("CI"));

  private ExternalPrograms() {}

  /** The first of {@code paths} that is executable; if none is, skips or (CI) fails the test. */
  static Path require(String program, String... paths) {
    for (String p : paths) {
      if (Files.isExecutable(Path.of(p))) {
        return Path.of(p);
      }
    }
    missing(program + " is not installed (looked for " + String.join(", ", paths) + ")");
    return null; // not reached
  }

  /** Skips, or under {@code CI=true} fails, the calling test unless {@code present}. */
  static void requireThat(boolean present, Supplier<String> whatIsMissing) {
    if (!present) {
      missing(whatIsMissing.get());
    }
  }

  /** Skips the calling test, or fails it under {@code CI=true}: {@code why} says what is missing. */
  static void missing(String why) {
    if (CI) {
      throw new AssertionError(why + " (CI=true: a test whose program is missing fails; .ci/run installs it)");
    }
    Assumptions.abort(why);
  }
}
