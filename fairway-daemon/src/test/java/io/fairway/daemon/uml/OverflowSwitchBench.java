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
 * The overflow switch benchmark (bench/overflow-switch.sh): boots user-mode Linux once and runs
 * resources/overflow/overflow-bench.sh, which opens connections through the kernel's IPVS at a
 * fixed rate past the pool's capacity and back, once per overflow reading interval, and prints what
 * it measured (refused connections, switch windows in ms).
 *
 * <p>Usage: {@code OverflowSwitchBench RATE INTERVAL_SECONDS...}
 */
public final class OverflowSwitchBench {
  private OverflowSwitchBench() {}

  public static void main(String[] args) throws Exception {
    String rate = args.length > 0 ? args[0] : "200";
    List<String> intervals =
        args.length > 1 ? List.of(args).subList(1, args.length) : List.of("0.01", "0.002", "0.05");
    Path scenario = Files.createTempDirectory("overflow-bench-");
    for (String f :
        List.of("overflow.conf", "overflow-bench.sh", "topology.sh", "backend.py", "rate.py")) {
      try (InputStream in = OverflowSwitchBench.class.getResourceAsStream("/overflow/" + f)) {
        Files.copy(Objects.requireNonNull(in, f), scenario.resolve(f));
      }
    }
    Files.writeString(
        scenario.resolve("fairway.sh"),
        "#!/bin/sh\nexec "
            + Uml.javaCommand(Uml.testClasspath(), "io.fairway.cli.Main")
            + " \"$@\"\n");
    Path out = Path.of("target", "uml-overflow-bench").toAbsolutePath();
    Uml.clean(out);
    List<String> cmd =
        new ArrayList<>(
            List.of(
                "sh", scenario.resolve("overflow-bench.sh").toString(), scenario.toString(), rate));
    cmd.addAll(intervals);
    Uml.Result r =
        Uml.builder()
            .command(String.join(" ", cmd.stream().map(Uml::quote).toList()))
            .outputDir(out)
            .timeout(Duration.ofMinutes(4 + 2L * intervals.size()))
            .run();
    if (r.exitCode() != 0) {
      System.err.println(r.diagnostics());
      System.exit(1);
    }
    for (String i : intervals) {
      System.out.println("--- --overflow-interval " + i + " s, " + rate + " connections/s");
      System.out.print(r.file("bench-" + i + ".properties"));
    }
    System.out.println("(files in " + out + ")");
  }
}
