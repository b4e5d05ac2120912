package io.fairway.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.testkit.ExternalPrograms;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The real keepalived ({@code keepalived -t}) reads our fixtures and our {@code --dump} output
 * without complaint, so "canonical keepalived syntax" is checked against keepalived itself.
 */
class KeepalivedCrossCheckTest {

  static @Nullable Path keepalived() {
    for (String dir : List.of("/usr/sbin", "/sbin", "/usr/local/sbin")) {
      Path p = Path.of(dir, "keepalived");
      if (Files.isExecutable(p)) {
        return p;
      }
    }
    return null;
  }

  /** Runs {@code keepalived -t} and returns its complaints (lines that are not notices). */
  static List<String> complaints(Path file) throws Exception {
    Path bin = Objects.requireNonNull(keepalived(), "callers run only where keepalived is");
    Process p =
        new ProcessBuilder(
                bin.toString(), "-t", "-f", file.getFileName().toString(), "-i", "testhost")
            .directory(
                Objects.requireNonNull(file.getParent(), "a fixture file is in a directory")
                    .toFile())
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.PIPE)
            .start();
    byte[] out = p.getInputStream().readAllBytes();
    if (!p.waitFor(30, TimeUnit.SECONDS)) {
      p.destroyForcibly();
    }
    return new String(out, StandardCharsets.UTF_8)
        .lines()
        .filter(
            l ->
                l.contains("Unknown keyword")
                    || l.contains("not found")
                    || l.toLowerCase(Locale.ROOT).contains("invalid")
                    || l.contains("removing")
                    || l.contains("ignoring")
                    || l.contains("Missing"))
        .filter(l -> !l.contains("BFD"))
        .toList();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {"full.conf", "ipv6.conf", "fwmark.conf", "macros.conf", "include/main.conf"})
  void keepalivedAcceptsFixturesAndTheirDumps(String fixture, @TempDir Path tmp) throws Exception {
    ExternalPrograms.requireThat(keepalived() != null, () -> "keepalived is not installed");
    assertThat(complaints(Fixtures.path(fixture))).as("keepalived -t on " + fixture).isEmpty();
    Path dump = tmp.resolve("dump.conf");
    Files.writeString(dump, KeepalivedConfig.dump(Fixtures.load(fixture).config()));
    assertThat(complaints(dump))
        .as("keepalived -t on the dump of " + fixture + File.separator)
        .isEmpty();
  }
}
