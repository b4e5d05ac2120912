package io.fairway.testkit;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.opentest4j.TestAbortedException;

/** A missing program skips a test on a developer's machine and fails it in CI. */
class ExternalProgramsTest {
  @Test
  void aMissingProgramFailsUnderCi() {
    assertThatThrownBy(() -> ExternalPrograms.missing("varnishd is not installed", true))
        .isInstanceOf(AssertionError.class)
        .hasMessageStartingWith("varnishd is not installed (CI=true");
  }

  @Test
  void aMissingProgramSkipsElsewhere() {
    assertThatThrownBy(() -> ExternalPrograms.missing("varnishd is not installed", false))
        .isInstanceOf(TestAbortedException.class)
        .hasMessageContaining("varnishd is not installed");
  }

  @Test
  void requireReturnsTheFirstExecutableAndOtherwiseGoesThroughMissing() {
    org.assertj.core.api.Assertions.assertThat(
            ExternalPrograms.require("sh", "/nonexistent/sh", "/bin/sh"))
        .hasToString("/bin/sh");
    assertThatThrownBy(() -> ExternalPrograms.require("nope", "/nonexistent/nope"))
        .isInstanceOfAny(AssertionError.class, TestAbortedException.class)
        .hasMessageContaining("nope is not installed (looked for /nonexistent/nope)");
  }
}
