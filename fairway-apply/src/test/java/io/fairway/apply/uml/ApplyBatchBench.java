package io.fairway.apply.uml;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fairway.testkit.uml.Uml;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Not a timed test: the launcher of {@code bench/apply-batch.sh}, skipped unless {@code
 * -Dfairway.bench=true}. Boots user-mode Linux, runs {@link ApplyBatchScenario} and prints its
 * measurements; nothing is asserted about them.
 */
class ApplyBatchBench {
  @Test
  void measure() throws Exception {
    assumeTrue(Boolean.getBoolean("fairway.bench"), "benchmark: run bench/apply-batch.sh");
    Uml.assumeAvailable();
    Path out = Path.of("target", "bench-apply-batch").toAbsolutePath();
    Uml.clean(out);
    Uml.Result r =
        Uml.builder()
            .javaMain(ApplyBatchScenario.class, Uml.OUT)
            .outputDir(out)
            .timeout(Duration.ofMinutes(10))
            .run();
    assertThat(r.exitCode()).as(r.diagnostics()).isZero();
    System.out.println(r.file("results.txt"));
  }
}
