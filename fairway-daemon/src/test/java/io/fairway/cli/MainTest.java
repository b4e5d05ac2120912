package io.fairway.cli;

import static io.fairway.cli.CliRun.run;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

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
}
