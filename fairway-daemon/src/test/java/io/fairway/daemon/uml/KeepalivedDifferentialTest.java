package io.fairway.daemon.uml;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.testkit.ExternalPrograms;
import io.fairway.testkit.uml.Uml;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The differential test against keepalived 2.2.7: the same keepalived.conf and the same scripted
 * backend failures, HTTP status changes, script exit codes and reload (resources/differential), run
 * once under {@code keepalived -C -n -l -f} and once under {@code fairway run} inside user-mode
 * Linux (two boots, in parallel), comparing the sorted {@code ipvsadm -Sn} after every step.
 *
 * <p>The scenario covers quorum with hysteresis and a sorry server, inhibit_on_failure, alpha and a
 * cold start against a dead pool with an inhibit sorry server, HTTP status changes, misc_dynamic
 * weights, a reload that removes, changes and adds servers and services, a fwmark service with
 * direct routing and persistence, a virtual_server_group with an address range and a fwmark, and
 * and macros (definitions, a multi-line definition, a ~SEQ repeater), and a track_file whose value
 * raises a server's weight, drains it to 0, brings it back, and still moves it after the reload
 * (riding on existing steps, so it costs no settle time of its own). Two DR port cases ride on
 * steps 5 and 6 the same way: a DR real server whose port (8080, the only one that listens) differs
 * from its virtual server's (80), and a DR group whose entries have different ports (80 and 8080)
 * over that real server; IPVS must get the service's port and the checker the real server's, as
 * keepalived does.
 */
class KeepalivedDifferentialTest {
  private static final List<String> FILES =
      List.of("conf-0.conf", "conf-1.conf", "steps.sh", "driver.sh", "backend.py");

  @Test
  void keepalivedAndFairwayWriteTheSameTableAfterEveryStep() throws Exception {
    Uml.assumeAvailable();
    ExternalPrograms.require("keepalived", "/usr/sbin/keepalived");
    String python = pythonExecutable();
    ExternalPrograms.requireThat(
        python != null,
        () -> "python3 is not installed (the scenario's backends are python http.server)");

    Path scenario = Files.createTempDirectory("fairway-differential-");
    for (String f : FILES) {
      try (InputStream in = getClass().getResourceAsStream("/differential/" + f)) {
        Files.copy(Objects.requireNonNull(in, f), scenario.resolve(f));
      }
    }
    Files.writeString(scenario.resolve("python"), python + "\n");
    Files.writeString(
        scenario.resolve("fairway.sh"),
        "#!/bin/sh\nexec "
            + Uml.javaCommand(Uml.testClasspath(), "io.fairway.cli.Main")
            + " \"$@\"\n");
    int steps =
        Integer.parseInt(
            Files.readAllLines(scenario.resolve("steps.sh")).stream()
                .filter(l -> l.startsWith("STEPS="))
                .findFirst()
                .orElseThrow()
                .substring(6)
                .trim());

    // One boot per subject, both at once: they share nothing but the scenario files, and the
    // test's wall time halves on a two-core machine.
    Path out = Path.of("target", "uml-differential").toAbsolutePath();
    Uml.clean(out);
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      Future<Uml.Result> keepalivedRun = pool.submit(() -> boot(scenario, out, "keepalived"));
      Future<Uml.Result> fairwayRun = pool.submit(() -> boot(scenario, out, "fairway"));
      keepalivedRun.get();
      fairwayRun.get();
    } finally {
      pool.shutdownNow();
    }
    Uml.Result r = new Uml.Result(0, false, out, Duration.ZERO);

    String context =
        "\n--- keepalived log tail:\n"
            + tail(r.file("keepalived/log.txt"))
            + "\n--- fairway log tail:\n"
            + tail(r.file("fairway/log.txt"));
    assertThat(r.file("keepalived/notes.txt") + r.file("fairway/notes.txt"))
        .as("settled")
        .isEmpty();
    List<String> tables = new ArrayList<>();
    for (int i = 0; i <= steps; i++) {
      String keepalived = r.file("keepalived/step-" + i + ".txt");
      String fairway = r.file("fairway/step-" + i + ".txt");
      assertThat(keepalived).as("keepalived wrote step %d", i).isNotBlank();
      assertThat(fairway)
          .as("step %d: fairway's table vs keepalived's%s", i, context)
          .isEqualTo(keepalived);
      tables.add(keepalived);
    }
    // A scenario whose steps change nothing would pass vacuously.
    assertThat(new HashSet<>(tables))
        .as("distinct tables across the steps")
        .hasSizeGreaterThan(steps - 1);
    assertThat(r.file("fairway/exit-code").trim())
        .as("fairway exit code after SIGTERM")
        .isEqualTo("0");
    assertThat(r.file("keepalived/exit-code").trim()).isEqualTo("0");
    // keepalived 2.2.7 leaves a virtual_server_group's address services behind at shutdown;
    // fairway removes everything it installed.
    assertThat(r.file("fairway/after-stop.txt")).as("fairway's table after SIGTERM").isEmpty();
  }

  private static Uml.Result boot(Path scenario, Path out, String subject) throws Exception {
    Uml.Result r =
        Uml.builder()
            .command(
                "sh "
                    + Uml.quote(scenario.resolve("driver.sh").toString())
                    + " "
                    + Uml.quote(scenario.toString())
                    + " "
                    + subject)
            .outputDir(out.resolve("boot-" + subject))
            .timeout(Duration.ofMinutes(8))
            .run();
    assertThat(r.exitCode()).as(subject + ": " + r.diagnostics()).isZero();
    // The driver writes to /run/out/SUBJECT; gather both under one directory.
    Files.move(r.outDir().resolve(subject), out.resolve(subject));
    return r;
  }

  private static String pythonExecutable() throws IOException, InterruptedException {
    if (Files.isExecutable(Path.of("/usr/bin/python3"))) {
      return "/usr/bin/python3"; // Debian's, rather than a per-user shim
    }
    ProcessBuilder pb = new ProcessBuilder("python3", "-c", "import sys; print(sys.executable)");
    pb.redirectErrorStream(true);
    Process p;
    try {
      p = pb.start();
    } catch (IOException e) {
      return null;
    }
    String path = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    if (!p.waitFor(30, TimeUnit.SECONDS)
        || p.exitValue() != 0
        || !Files.isExecutable(Path.of(path))) {
      return null;
    }
    return path;
  }

  private static String tail(String s) {
    return s.length() <= 4000 ? s : s.substring(s.length() - 4000);
  }
}
