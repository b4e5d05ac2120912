package io.fairway.cli;

import static io.fairway.cli.CliRun.run;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The admin commands' one-line errors and exit codes when nothing runs or the input is bad. */
class AdminCliTest {
  @Test
  void nothingRunningIsOneLineAndExitOne() throws Exception {
    String admin = "127.0.0.1:" + UserspaceRunTest.freePort();
    for (String[] args :
        new String[][] {
          {"server", "drain", "a", "b", "--admin", admin},
          {"server", "weight", "a", "b", "3", "--admin", admin},
          {"reload", "--admin", admin},
          {"events", "--admin", admin},
          {"status", "--json", "--admin", admin}
        }) {
      CliRun r = run(args);
      assertThat(r.code()).as(String.join(" ", args)).isEqualTo(1);
      assertThat(r.err())
          .as(String.join(" ", args))
          .contains("no fairway run is answering on " + admin)
          .hasLineCount(1);
    }
  }

  @Test
  void badInputIsAUsageError() {
    assertThat(run("server").code()).isEqualTo(Main.EXIT_USAGE);
    assertThat(run("server").err()).contains("drain, maint, ready, weight");
    assertThat(run("server", "weight", "a", "b", "-3").err())
        .contains("must be >= 0")
        .hasLineCount(1);
    assertThat(run("server", "drain", "a", "b", "--wait", "--timeout", "soon").err())
        .contains("--timeout")
        .contains("30s, 500ms or 2m")
        .hasLineCount(1);
    assertThat(run("server", "maint", "a").code()).isEqualTo(Main.EXIT_USAGE);
    assertThat(run("events", "--admin", "nonsense").code()).isEqualTo(Main.EXIT_USAGE);
    assertThat(run("reload", "--admin", "10.1.1.1").code()).isEqualTo(Main.EXIT_USAGE);
  }
}
