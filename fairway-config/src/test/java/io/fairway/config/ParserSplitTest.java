package io.fairway.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Paths the method-length split of the parsers moved (tunnel options, group ranges, director and
 * shard blocks, track_file, checker timing, real_server_dns, the top level, ~SEQ/~LST and includes,
 * virtual addresses, a virtual_server's defaults and checks, and the dump): for each file in {@code
 * split-cases/}, every diagnostic in order, or the dump when the file is good, exactly as {@code
 * split-cases/expected.txt} has them. That file was written by the parsers before the split, so a
 * refactoring that changes a message, its file:line or the order of messages fails here.
 */
class ParserSplitTest {
  private static final Path DIR = dir();

  private static Path dir() {
    try {
      return Path.of(ParserSplitTest.class.getResource("/split-cases").toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void everyCaseReportsWhatTheParsersReportedBeforeTheSplit() throws IOException {
    String expected = Files.readString(DIR.resolve("expected.txt"), StandardCharsets.UTF_8);
    assertThat(render()).isEqualTo(expected);
  }

  static String render() throws IOException {
    List<Path> cases;
    try (Stream<Path> s = Files.list(DIR)) {
      cases = s.filter(p -> p.toString().endsWith(".conf")).sorted().toList();
    }
    StringBuilder out = new StringBuilder();
    for (Path p : cases) {
      out.append("== ").append(p.getFileName()).append('\n');
      for (String line : outcome(p)) {
        out.append(line).append('\n');
      }
    }
    return out.toString();
  }

  /** The errors and warnings of a refused file; the warnings and the dump of an accepted one. */
  private static List<String> outcome(Path p) {
    List<String> lines = new ArrayList<>();
    try {
      ParseResult r = KeepalivedConfig.parse(p, Fixtures.OPTIONS);
      r.warnings().forEach(d -> lines.add(local(d.format())));
      lines.add(KeepalivedConfig.dump(r.config()));
    } catch (ConfigException e) {
      e.errors().forEach(d -> lines.add(local(d.format())));
      e.warnings().forEach(d -> lines.add(local(d.format())));
    }
    return lines;
  }

  /** A path in a message without the directory the build runs in. */
  private static String local(String message) {
    return message.replaceAll("[^\\s']*split-cases/", "");
  }
}
