package io.fairway.daemon.uml;

import io.fairway.testkit.uml.Uml;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Host side of bench/startup-uml.sh: boots user-mode Linux once and runs
 * resources/startup/startup-uml.sh inside, which times keepalived and {@code fairway run} from exec
 * to the whole table visible in the kernel's IPVS. Arguments: rounds, then sizes.
 */
public final class StartupBenchmark {
  public static void main(String[] args) throws Exception {
    if (Uml.unavailableReason().isPresent()) {
      System.err.println("cannot run: " + Uml.unavailableReason().get());
      System.exit(2);
    }
    Path scenario = Files.createTempDirectory("pkg-startup-");
    try (InputStream in = StartupBenchmark.class.getResourceAsStream("/startup/startup-uml.sh")) {
      Files.copy(Objects.requireNonNull(in), scenario.resolve("startup-uml.sh"));
    }
    Files.writeString(scenario.resolve("python"), "/usr/bin/python3\n");
    Files.writeString(
        scenario.resolve("fairway.sh"),
        "#!/bin/sh\nexec "
            + Uml.javaCommand(Uml.testClasspath(), "io.fairway.cli.Main")
            + " \"$@\"\n");
    List<String> words =
        new ArrayList<>(
            List.of("sh", scenario.resolve("startup-uml.sh").toString(), scenario.toString()));
    words.addAll(List.of(args));
    Path out = Files.createTempDirectory("pkg-startup-out-");
    Uml.Result r =
        Uml.builder()
            .command(String.join(" ", words.stream().map(Uml::quote).toList()))
            .outputDir(out)
            .memory("2G")
            .timeout(Duration.ofMinutes(30))
            .run();
    System.out.print(r.file("startup.txt"));
    if (r.exitCode() != 0) {
      System.err.println(r.diagnostics());
      System.exit(1);
    }
    System.out.printf("(UML boot + run: %d s)%n", r.took().toSeconds());
  }
}
