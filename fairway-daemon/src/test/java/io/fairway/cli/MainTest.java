package io.fairway.cli;

import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;

import static org.assertj.core.api.Assertions.assertThat;

class MainTest {

  record Run(int code, String out, String err) {}

  static Run run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = Main.execute(args, new PrintWriter(out, true), new PrintWriter(err, true));
    return new Run(code, out.toString(), err.toString());
  }

  @Test
  void helpListsTheCommand() {
    Run r = run("--help");
    assertThat(r.code()).isZero();
    assertThat(r.out()).contains("Usage: fairway");
  }

  @Test
  void unknownOptionIsOneLineAndExitTwo() {
    Run r = run("--no-such-option");
    assertThat(r.code()).isEqualTo(Main.EXIT_USAGE);
    assertThat(r.err().strip().lines()).hasSize(1);
    assertThat(r.err()).contains("--no-such-option");
  }
}
