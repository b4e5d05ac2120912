package io.fairway.cli;

import static io.fairway.cli.CliRun.run;
import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.config.KeepalivedConfig;
import io.fairway.config.ParseOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CheckConfigCommandTest {

  static final String GOOD =
      """
      global_defs {
          router_id T
      }
      vrrp_instance V {
          interface lo
          virtual_router_id 51
          no_accept
      }
      $P=8080
      virtual_server 127.0.0.1 $P {
          lb_algo rr
          protocol TCP
          @special real_server 127.0.0.3 $P {
          @special }
          real_server 127.0.0.2 9000 {
              TCP_CHECK {
                  connect_timeout 2
              }
          }
      }
      """;

  @Test
  void validFileExitsZeroWithWarningsOnStderr(@TempDir Path dir) throws Exception {
    Path f = Files.writeString(dir.resolve("k.conf"), GOOD);
    CliRun r = run("check-config", "-f", f.toString());
    assertThat(r.code()).isZero();
    assertThat(r.out()).isEmpty();
    assertThat(r.err().strip().lines())
        .singleElement()
        .asString()
        .startsWith(f + ":7: warning: no_accept:");
  }

  @Test
  void strictTurnsWarningsIntoFailure(@TempDir Path dir) throws Exception {
    Path f = Files.writeString(dir.resolve("k.conf"), GOOD);
    CliRun r = run("check-config", "--strict", "-f", f.toString());
    assertThat(r.code()).isEqualTo(CheckConfigCommand.EXIT_INVALID);
    assertThat(r.err()).contains(f + ":7: no_accept:").doesNotContain("warning:");
  }

  @Test
  void dumpPrintsTheEffectiveConfigurationWhichLoadsToTheSameModel(@TempDir Path dir)
      throws Exception {
    Path f = Files.writeString(dir.resolve("k.conf"), GOOD);
    CliRun r = run("check-config", "--dump", "--config-id", "special", "-f", f.toString());
    assertThat(r.code()).isZero();
    assertThat(r.out())
        .contains("virtual_server 127.0.0.1 8080 {")
        .contains("real_server 127.0.0.3 8080 {")
        .contains("delay_loop 60")
        .doesNotContain("$P");
    ParseOptions special = ParseOptions.defaults().withConfigId("special");
    assertThat(KeepalivedConfig.parse("dump", r.out(), dir, special).config())
        .isEqualTo(KeepalivedConfig.parse(f, special).config());
  }

  @Test
  void errorsAreOneLineEachWithFileAndLineAndExitOne(@TempDir Path dir) throws Exception {
    Path f =
        Files.writeString(
            dir.resolve("bad.conf"),
            """
        virtual_server 127.0.0.1 80 {
            lb_algo rrr
            real_server 127.0.0.2 80 {
                wieght 1
                uthreshold 5
                lthreshold 6
            }
        """);
    CliRun r = run("check-config", "-f", f.toString());
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err().lines()).allMatch(l -> l.startsWith(f + ":"));
    assertThat(r.err())
        .contains(f + ":2: unknown scheduler 'rrr' (did you mean 'rr'?)")
        .contains(f + ":4: unknown keyword 'wieght' in real_server (did you mean 'weight'?)")
        .contains(f + ":6: lthreshold 6 is above uthreshold 5")
        .contains(f + ":1: unbalanced '{'")
        .doesNotContain("Exception")
        .doesNotContain("\tat ");
  }

  @Test
  void unterminatedQuoteIsAnErrorNotACrash(@TempDir Path dir) throws Exception {
    Path f = Files.writeString(dir.resolve("q.conf"), "global_defs {\n  router_id \"oops\n}\n");
    CliRun r = run("check-config", "-f", f.toString());
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err()).startsWith(f + ":2: unterminated quoted string");
  }

  @Test
  void missingFileIsOneLine(@TempDir Path dir) {
    CliRun r = run("check-config", "-f", dir.resolve("none.conf").toString());
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err().strip().lines())
        .singleElement()
        .asString()
        .contains("none.conf: cannot read file");
  }

  @Test
  void usageErrorsExitTwo() {
    CliRun r = run("check-config");
    assertThat(r.code()).isEqualTo(Main.EXIT_USAGE);
    assertThat(r.err().strip().lines()).hasSize(1);
    assertThat(r.err()).contains("--use-file");
  }

  @Test
  void dumpEndsWithThePlanAsCommentsAndStillLoads(@TempDir Path dir) throws Exception {
    Path f =
        Files.writeString(
            dir.resolve("k.conf"),
            """
        virtual_server 127.0.0.1 8080 {
          name web
          lb_algo shard
          lb_kind HTTP
          shard {
            by URL
            replicas 25
            warmup 1.0
          }
          real_server 127.0.0.1 9001 {
            name b1
            ident node-1
            weight 1.5
          }
        }
        """);
    CliRun r = run("check-config", "--dump", "-f", f.toString());
    assertThat(r.code()).isZero();
    assertThat(r.out())
        .contains("# virtual_server web (" + f + ":1)")
        .contains("#   selection shard replicas 25 by URL healthy CHOSEN warmup 1.0 rampup 0.0s")
        .contains(
            "#   member b1 ident node-1 weight 1.5 address 127.0.0.1 ipvs_port 9001 check_port 9001");
    Path again = Files.writeString(dir.resolve("dump.conf"), r.out());
    assertThat(run("check-config", "-f", again.toString()).code()).isZero();
  }
}
