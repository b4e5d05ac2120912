package io.fairway.cli;

import static io.fairway.cli.CliRun.run;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CompletionCommandTest {
  @TempDir Path dir;

  /** Runs bash with the script loaded; returns what {@code body} prints. */
  String bash(String script, String body) throws Exception {
    Path f = dir.resolve("fairway.bash");
    Files.writeString(f, script);
    Process p =
        new ProcessBuilder("bash", "-c", "source " + f + " && " + body)
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    return out;
  }

  @Test
  void bashCompletesSubcommandsAndTheirOptionsFromTheCommandTree() throws Exception {
    CliRun r = run("completion", "bash");
    assertThat(r.code()).as(r.err()).isZero();
    // What bash itself completes, with the script loaded, for "fairway " and "fairway run --u".
    String subcommands =
        bash(
            r.out(),
            "COMP_WORDS=(fairway ''); COMP_CWORD=1; COMP_LINE='fairway '; COMP_POINT=8;"
                + " _complete_fairway; printf '%s\\n' \"${COMPREPLY[@]}\"");
    assertThat(subcommands.lines())
        .contains("run", "status", "check-config", "pick", "demo", "completion");
    String runOptions =
        bash(
            r.out(),
            "COMP_WORDS=(fairway run --u); COMP_CWORD=2; COMP_LINE='fairway run --u'; COMP_POINT=15;"
                + " _complete_fairway; printf '%s\\n' \"${COMPREPLY[@]}\"");
    assertThat(runOptions.lines()).contains("--use-file", "--userspace");
  }

  @Test
  void anUnknownShellIsOneLineAndTheUsageExitCode() {
    CliRun r = run("completion", "tcsh");
    assertThat(r.code()).isEqualTo(Main.EXIT_USAGE);
    assertThat(r.err().strip().lines()).hasSize(1);
    assertThat(r.err()).contains("tcsh").contains("bash");
  }
}
