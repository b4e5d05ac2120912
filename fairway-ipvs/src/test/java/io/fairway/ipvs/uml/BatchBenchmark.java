package io.fairway.ipvs.uml;

import io.fairway.testkit.uml.Uml;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Host side of the batching benchmark: boots user-mode Linux and runs {@link BatchBenchmarkMain}
 * inside. Arguments: services, destinations per service, rounds. Run by {@code
 * bench/ipvs-batch.sh}.
 */
public final class BatchBenchmark {
  public static void main(String[] args) throws Exception {
    if (Uml.unavailableReason().isPresent()) {
      System.err.println("cannot run: " + Uml.unavailableReason().get());
      System.exit(2);
    }
    Path out = Files.createTempDirectory("fairway-ipvs-bench-");
    Uml.Result r =
        Uml.builder()
            .javaMain(BatchBenchmarkMain.class, args)
            .outputDir(out)
            .timeout(Duration.ofMinutes(15))
            .run();
    System.out.print(r.stdout());
    if (r.exitCode() != 0) {
      System.err.println(r.diagnostics());
      System.exit(1);
    }
    System.out.printf("(UML boot + run: %d s)%n", r.took().toSeconds());
  }
}
