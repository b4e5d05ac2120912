package io.fairway.daemon.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.fairway.daemon.Durations;
import io.fairway.daemon.Json;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * Coverage-guided fuzzing (Jazzer) of what the admin listener decodes from anyone who can reach it,
 * before the token is looked at: the request target (path segments and query, percent escapes), the
 * JSON bodies of the mutations ({@code {"state":..,"wait":..,"timeout":..}}, {@code {"weight":N}})
 * and the durations in them. Invariants: only {@link IllegalArgumentException} escapes, the
 * documented rejection (answered 400), with a one-line message; a duration is within 0 to {@link
 * Durations#MAX}; a weight decoded is an integer; allocation stays bounded by the input. The normal
 * build replays the seeds once (src/test/resources/io/fairway/daemon/admin/AdminFuzzTestInputs);
 * {@code bench/fuzz.sh} fuzzes.
 */
class AdminFuzzTest {
  private static final com.sun.management.ThreadMXBean THREADS =
      (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

  static {
    // Jackson's and Netty's one-time set-up is not what one input costs: pay it first.
    for (String s : new String[] {"/api/v1/services/a%3A80?x=1", "/%zz", "{\"weight\":1}"}) {
      byte[] b = s.getBytes(StandardCharsets.UTF_8);
      requestTargetOf(b);
      bodyOf(b);
      durationOf(b);
    }
  }

  @FuzzTest(maxDuration = "5m")
  void requestTarget(byte[] input) {
    long before = THREADS.getCurrentThreadAllocatedBytes();
    requestTargetOf(input);
    assertBounded(before, input.length);
  }

  @FuzzTest(maxDuration = "5m")
  void mutationBody(byte[] input) {
    long before = THREADS.getCurrentThreadAllocatedBytes();
    bodyOf(input);
    assertBounded(before, input.length);
  }

  @FuzzTest(maxDuration = "5m")
  void duration(byte[] input) {
    long before = THREADS.getCurrentThreadAllocatedBytes();
    durationOf(input);
    assertBounded(before, input.length);
  }

  /** As the server hands the target over: the request line's bytes, decoded as ISO-8859-1. */
  private static void requestTargetOf(byte[] input) {
    String uri = new String(input, StandardCharsets.ISO_8859_1);
    try {
      RequestTarget t = RequestTarget.parse(uri);
      assertThat(t.path()).doesNotContain("");
    } catch (IllegalArgumentException e) {
      assertOneLine(e);
      assertThat(e.getMessage()).startsWith("bad request target: ");
    }
  }

  private static void bodyOf(byte[] input) {
    try {
      AdminApi.StateBody s = Json.read(input, AdminApi.StateBody.class);
      if (s.timeout() != null) {
        durationOf(s.timeout().getBytes(StandardCharsets.UTF_8));
      }
    } catch (IllegalArgumentException e) {
      assertOneLine(e);
    }
    try {
      AdminApi.WeightBody w = Json.read(input, AdminApi.WeightBody.class);
      // Strict: a weight is an integer literal of the body, never a coerced float, string or
      // boolean (0.0001 taken as 0 stopped a server's traffic).
      if (w.weight() != null) {
        assertThat(new String(input, StandardCharsets.UTF_8))
            .contains(Integer.toString(w.weight()));
      }
    } catch (IllegalArgumentException e) {
      assertOneLine(e);
    }
  }

  private static void durationOf(byte[] input) {
    try {
      Duration d = Durations.parse(new String(input, StandardCharsets.UTF_8));
      assertThat(d).isBetween(Duration.ZERO, Durations.MAX);
    } catch (IllegalArgumentException e) {
      assertOneLine(e);
    }
  }

  private static void assertOneLine(IllegalArgumentException e) {
    assertThat(e.getMessage()).isNotBlank().doesNotContain("\n").doesNotContain("\r");
  }

  private static void assertBounded(long before, int inputLength) {
    long used = THREADS.getCurrentThreadAllocatedBytes() - before;
    assertThat(used)
        .as("bytes allocated for %d input bytes", inputLength)
        .isLessThan((4L << 20) + 256L * inputLength);
  }
}
