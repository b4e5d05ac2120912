package io.fairway.cli;

import static io.fairway.cli.CliRun.run;
import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.check.checker.TcpProbe;
import org.junit.jupiter.api.Test;

/** {@code fairway run --tcp-check}: typed from the command line to the check engine's option. */
class RunTcpCheckOptionTest {

  static RunCommand parsed(String... args) {
    var line = Main.commandTree();
    var result = line.parseArgs(args);
    return (RunCommand) result.subcommand().commandSpec().userObject();
  }

  @Test
  void connectByDefaultHalfOpenWhenAsked() {
    assertThat(parsed("run", "-f", "k.conf").tcpCheck).isEqualTo(TcpProbe.CONNECT);
    assertThat(parsed("run", "-f", "k.conf", "--tcp-check=half-open").tcpCheck)
        .isEqualTo(TcpProbe.HALF_OPEN);
    assertThat(parsed("run", "-f", "k.conf", "--tcp-check", "connect").tcpCheck)
        .isEqualTo(TcpProbe.CONNECT);
  }

  @Test
  void anUnknownModeIsAUsageError() {
    CliRun r = run("run", "-f", "k.conf", "--tcp-check=syn");
    assertThat(r.code()).isEqualTo(Main.EXIT_USAGE);
    assertThat(r.err()).contains("'syn' is not a TCP check mode (connect, half-open)");
  }
}
