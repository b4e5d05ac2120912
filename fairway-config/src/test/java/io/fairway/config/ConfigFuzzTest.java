package io.fairway.config;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.fairway.config.model.Config;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;

/**
 * Coverage-guided fuzzing (Jazzer) of the whole configuration path: preprocessor (comments,
 * {@code @ID}, definitions, repeaters, includes), block tree and parser. Invariants:
 *
 * <ul>
 *   <li>only {@link ConfigException} escapes, and its message is one {@code fuzz.conf[:LINE]: }
 *       line per error with no invisible character;
 *   <li>allocation is bounded: under small limits a parse allocates at most {@link #MAX_ALLOC};
 *   <li>what loads prints ({@code check-config --dump}) to text that parses to an equal model.
 * </ul>
 *
 * <p>In the normal build each target runs its seeds (src/test/resources/.../ConfigFuzzTestInputs)
 * once, in regression mode. For a real run see docs/testing.md ("Fuzzing"): {@code JAZZER_FUZZ=1
 * mvn -pl fairway-config -am test -Dtest=ConfigFuzzTest#parse ...}.
 */
class ConfigFuzzTest {

  static final ParseOptions OPTIONS =
      new ParseOptions(
          "fuzzhost", Map.of("X", "1"), new ParseLimits(256 << 10, 20, 256 << 10, 20_000));

  /** Limits are 256 KiB of text and 20,000 words; the model and garbage on top stay well below. */
  static final long MAX_ALLOC = 256L << 20;

  static final Path NOWHERE = Path.of("/nonexistent-fairway-fuzz");

  private static final com.sun.management.ThreadMXBean THREADS =
      (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

  @FuzzTest(maxDuration = "5m")
  void parse(byte[] input) {
    String text = new String(input, StandardCharsets.UTF_8);
    long before = THREADS.getCurrentThreadAllocatedBytes();
    Config config;
    try {
      config = KeepalivedConfig.parse("fuzz.conf", text, NOWHERE, OPTIONS).config();
    } catch (ConfigException e) {
      assertThat(e.errors()).isNotEmpty();
      for (String line : e.getMessage().split("\n", -1)) {
        assertThat(line).startsWith("fuzz.conf");
        assertThat(line.chars().noneMatch(c -> Printable.invisible((char) c)))
            .as("visible: %s", line)
            .isTrue();
      }
      assertBounded(before);
      return;
    }
    assertBounded(before);
    String dump = KeepalivedConfig.dump(config);
    Config again;
    try {
      again =
          KeepalivedConfig.parse(
                  "dump.conf", dump, NOWHERE, OPTIONS.withLimits(ParseLimits.defaults()))
              .config();
    } catch (ConfigException e) {
      throw new AssertionError(
          "the dump of a loaded file does not load: " + e.getMessage() + "\n--- dump:\n" + dump, e);
    }
    assertThat(again).as("parse(dump(parse(x))) == parse(x); dump:\n%s", dump).isEqualTo(config);
  }

  private static void assertBounded(long before) {
    long allocated = THREADS.getCurrentThreadAllocatedBytes() - before;
    assertThat(allocated).as("bytes allocated by one parse").isLessThan(MAX_ALLOC);
  }
}
