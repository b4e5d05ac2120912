package io.fairway.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** {@code promtool check metrics} on a scrape: it must report nothing. */
public final class Promtool {
  private Promtool() {}

  public static void assertClean(String scrape, Path dir) throws Exception {
    Path promtool =
        io.fairway.testkit.ExternalPrograms.require(
            "promtool (Debian package prometheus)", "/usr/bin/promtool");
    Path in = dir.resolve("scrape.txt");
    Files.writeString(in, scrape);
    Process p =
        new ProcessBuilder(promtool.toString(), "check", "metrics")
            .redirectInput(in.toFile())
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(out).as("promtool check metrics").isEmpty();
    assertThat(p.exitValue()).isZero();
  }
}
