package io.fairway.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Loads keepalived's own sample configurations when {@code FAIRWAY_KEEPALIVED_SAMPLES} names their
 * directory (they are GPL and not part of this repository).
 */
class ExternalSamplesTest {

  @Test
  void everyKeepalivedSampleLoadsAndRoundTrips() throws IOException {
    String dir = System.getenv("FAIRWAY_KEEPALIVED_SAMPLES");
    assumeTrue(
        dir != null && Files.isDirectory(Path.of(dir)),
        "FAIRWAY_KEEPALIVED_SAMPLES does not name a directory of keepalived sample configs");
    List<Path> samples;
    try (Stream<Path> s = Files.list(Path.of(dir))) {
      samples =
          s.filter(p -> p.getFileName().toString().startsWith("keepalived.conf")).sorted().toList();
    }
    assertThat(samples).isNotEmpty();
    for (Path p : samples) {
      ParseResult r = KeepalivedConfig.parse(p, Fixtures.OPTIONS);
      assertThat(r.config().virtualServers()).as(p.toString()).isNotEmpty();
      DumpRoundTripTest.assertRoundTrip(r.config());
    }
  }
}
