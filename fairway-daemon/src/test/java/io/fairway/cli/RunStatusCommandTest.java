package io.fairway.cli;

import static io.fairway.cli.CliRun.run;
import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.daemon.admin.AdminServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bad input to {@code fairway run} and {@code fairway status} is one line naming the option or
 * file:line, and a bad file is refused before the table is touched. (The kernel paths run in
 * user-mode Linux: FairwayRunTest.)
 */
class RunStatusCommandTest {
  @TempDir Path dir;

  @Test
  void runWithoutAFileIsAUsageError() {
    CliRun r = run("run");
    assertThat(r.code()).isEqualTo(Main.EXIT_USAGE);
    assertThat(r.err().strip().lines()).hasSize(1);
    assertThat(r.err()).contains("--use-file");
  }

  @Test
  void runRefusesAnInvalidFileWithFileAndLine() throws Exception {
    Path conf = dir.resolve("bad.conf");
    Files.writeString(
        conf,
        "virtual_server 10.16.0.1 80 {\n  lb_algo nosuch\n  real_server 10.16.1.1 80 {\n  }\n}\n");
    CliRun r = run("run", "-f", conf.toString(), "--admin", "off");
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err()).contains("bad.conf:2:").contains("nosuch").doesNotContain("Exception");
  }

  @Test
  void runRefusesAMissingFile() {
    CliRun r = run("run", "-f", dir.resolve("nope.conf").toString(), "--admin", "off");
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err().strip())
        .isEqualTo(
            "fairway: "
                + dir.resolve("nope.conf")
                + ": cannot read the configuration file: no such file or directory (ENOENT)");
  }

  @Test
  void runRefusesAUserspaceOnlyConfigurationOnTheKernel() throws Exception {
    Path conf = dir.resolve("shard.conf");
    Files.writeString(
        conf,
        "virtual_server 127.0.0.1 8080 {\n  lb_algo shard\n  lb_kind PROXY\n"
            + "  real_server 127.0.0.1 9001 {\n  }\n}\n");
    CliRun r = run("run", "-f", conf.toString(), "--admin", "off");
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err().strip().lines()).hasSize(1);
    assertThat(r.err()).contains("shard.conf:1").contains("--userspace");
  }

  @Test
  void badOptionsNameTheOption() {
    assertThat(run("run", "-f", "x", "--admin", "10.1.1.1:80").err())
        .contains("--admin")
        .contains("loopback");
    assertThat(run("run", "-f", "x", "--drift-interval", "-1").err()).contains("--drift-interval");
    for (String bad : new String[] {"0", "-0.01", "61", "NaN"}) {
      CliRun r = run("run", "-f", "x", "--overflow-interval", bad);
      assertThat(r.code()).as(bad).isEqualTo(Main.EXIT_USAGE);
      assertThat(r.err().strip().lines())
          .singleElement(org.assertj.core.api.InstanceOfAssertFactories.STRING)
          .contains("--overflow-interval");
    }
    assertThat(run("status", "--admin", "nonsense").code()).isEqualTo(Main.EXIT_USAGE);
  }

  @Test
  void statusWithNothingRunningSaysSoInOneLine() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    CliRun r = run("status", "--admin", "127.0.0.1:" + port);
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err().strip().lines()).hasSize(1);
    assertThat(r.err()).contains("no fairway run is answering on 127.0.0.1:" + port);
  }

  @Test
  void statusPrintsWhatTheDaemonServes() throws Exception {
    try (AdminServer server =
        AdminServer.start(
            new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
            () -> "TCP  10.16.0.1:80 rr\n")) {
      CliRun r = run("status", "--admin", "127.0.0.1:" + server.address().getPort());
      assertThat(r.code()).as(r.err()).isZero();
      assertThat(r.out()).isEqualTo("TCP  10.16.0.1:80 rr\n");
    }
  }
}
