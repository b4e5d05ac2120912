package io.fairway.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The two bombs of issue 16 at the default limits, each parsed in a child JVM with a 96 MB heap
 * (the daemon's is 512 MB): each ends in its one-line error, where before the budget each ran a 512
 * MB heap out of memory. The child prints its peak heap, which the test bounds too.
 */
class BombTest {

  static final int HEAP_MB = 96;

  record Run(int exit, List<String> output) {}

  static Run parseInSmallHeap(Path file) throws Exception {
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    Process p =
        new ProcessBuilder(
                java.toString(),
                "-XX:+UseSerialGC",
                "-Xmx" + HEAP_MB + "m",
                "-cp",
                System.getProperty("java.class.path"),
                ParsePeakHeap.class.getName(),
                file.toString())
            .redirectErrorStream(true)
            .start();
    // A bounded wait so a regression cannot hang the build; a pass takes a few seconds.
    boolean done = p.waitFor(120, TimeUnit.SECONDS);
    if (!done) {
      p.destroyForcibly();
    }
    List<String> out =
        new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines().toList();
    return new Run(done ? p.exitValue() : -1, out);
  }

  static void assertBounded(Run r, String firstLine) {
    assertThat(r.exit()).as("exit of the child; output: %s", r.output()).isZero();
    assertThat(r.output()).hasSize(2);
    assertThat(r.output().get(0)).startsWith(firstLine).endsWith("[1 errors]");
    String peak = r.output().get(1).replaceAll("peak heap: (\\d+) MB.*", "$1");
    assertThat(Integer.parseInt(peak)).isLessThan(HEAP_MB);
  }

  @Test
  void tripleRepeaterEndsInOneErrorInASmallHeap(@TempDir Path dir) throws Exception {
    Path f = dir.resolve("seq.conf");
    Files.writeString(f, BudgetTest.TRIPLE_SEQ);
    assertBounded(
        parseInSmallHeap(f), f + ":1: ~SEQ(a,1,200) goes past the limit of 1,000,000 words");
  }

  @Test
  void tenLevelDefinitionEndsInOneErrorInASmallHeap(@TempDir Path dir) throws Exception {
    Path f = dir.resolve("macro.conf");
    String bomb = BudgetTest.macroBomb();
    Files.writeString(f, bomb);
    int useLine = (int) bomb.lines().takeWhile(l -> !l.equals("$L10")).count() + 1;
    assertBounded(
        parseInSmallHeap(f), f + ":" + useLine + ": $L10 goes past the limit of 1,000,000 words");
  }
}
