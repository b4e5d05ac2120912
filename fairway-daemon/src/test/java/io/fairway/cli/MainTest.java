package io.fairway.cli;

import static io.fairway.cli.CliRun.run;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class MainTest {

  @Test
  void helpListsTheCommand() {
    CliRun r = run("--help");
    assertThat(r.code()).isZero();
    assertThat(r.out()).contains("Usage: fairway");
  }

  @Test
  void unknownOptionIsOneLineAndExitTwo() {
    CliRun r = run("--no-such-option");
    assertThat(r.code()).isEqualTo(Main.EXIT_USAGE);
    assertThat(r.err().strip().lines()).hasSize(1);
    assertThat(r.err()).contains("--no-such-option");
  }

  /**
   * Picocli formats every description with {@link String#format}; a bare {@code %} makes it warn on
   * stderr each time help is drawn and print the text raw (session 11 found "60% of the CPU" in
   * {@code run --tcp-check}). Its tracer writes to {@link System#err} itself, so that is where this
   * looks.
   */
  @Test
  void everyCommandsHelpDrawsWithoutAWarning() {
    PrintStream realErr = System.err;
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    List<String> drawn = new ArrayList<>();
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    try {
      drawHelp(Main.commandTree(), drawn);
    } finally {
      System.setErr(realErr);
    }
    assertThat(drawn).contains("run", "pick", "status");
    assertThat(err.toString(StandardCharsets.UTF_8)).isEmpty();
  }

  private static void drawHelp(CommandLine command, List<String> drawn) {
    assertThat(command.getUsageMessage()).isNotBlank();
    drawn.add(command.getCommandName());
    command.getSubcommands().values().forEach(sub -> drawHelp(sub, drawn));
  }
}
