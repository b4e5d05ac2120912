package io.fairway.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code fairway training-run} (the package's class data sharing training, see postinst) is a real
 * run that stops by itself: its checks reach its own backend, a request goes through each of its
 * two virtual servers (L4 and HTTP), and it exits 0 with no signal, its files in the directory it
 * was given.
 */
class TrainingRunCommandTest {
  @TempDir Path dir;

  @Test
  void aTrainingRunServesThroughBothVirtualServersAndStopsByItself() throws Exception {
    Path work = Files.createDirectory(dir.resolve("work"));
    Path log = dir.resolve("training.log");
    ProcessBuilder pb =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty(
                    "surefire.test.class.path", System.getProperty("java.class.path")),
                "io.fairway.cli.Main",
                "training-run",
                "--dir",
                work.toString())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    pb.environment().put("RUNTIME_DIRECTORY", work.toString());
    Process p = pb.start();
    try {
      assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("stopped by itself").isTrue();
    } finally {
      p.destroyForcibly();
    }
    String out = Files.readString(log);
    assertThat(p.exitValue()).as(out).isZero();
    assertThat(out)
        .contains("Daemon: running " + work.resolve("training.conf"))
        .containsPattern(
            "fairway training-run: [2-9]\\d* check connection\\(s\\) reached the backend, "
                + "2 of 2 virtual servers relayed a request")
        .doesNotContain("\tat ");
    try (var files = Files.list(work)) {
      assertThat(
              files
                  .map(f -> f.getFileName().toString())
                  .filter(n -> !n.startsWith("."))
                  .filter(n -> !n.equals("jna") && !n.equals("netty"))
                  .toList())
          .containsExactlyInAnyOrderElementsOf(List.of("training.conf", "admin.token"));
    }
  }
}
