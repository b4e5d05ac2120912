package io.fairway.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.testkit.ExternalPrograms;
import io.fairway.testkit.FairwayProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code fairway run} refuses VRRP instances that do not fit this machine, one line each. */
class VrrpRunCommandTest {
  @TempDir Path dir;

  @Test
  void anInterfaceThatDoesNotExistIsAFileLineError() throws Exception {
    Path conf = dir.resolve("vrrp.conf");
    Files.writeString(
        conf,
        "vrrp_instance VI_1 {\n  interface fwvnosuch0\n"
            + "  virtual_router_id 51\n  virtual_ipaddress {\n    192.0.2.1/24\n  }\n}\n");
    CliRun r = CliRun.run("run", "-f", conf.toString(), "--admin", "off");
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err().lines())
        .containsExactly(
            "fairway: " + conf + ":1: vrrp_instance VI_1: interface fwvnosuch0 does not exist");
  }

  @Test
  void aDuplicateRouterIdIsRefusedBeforeAnythingStarts() throws Exception {
    Path conf = dir.resolve("dup.conf");
    Files.writeString(
        conf,
        "vrrp_instance A {\n  interface eth0\n  virtual_router_id 9\n}\n"
            + "vrrp_instance B {\n  interface eth0\n  virtual_router_id 9\n}\n");
    CliRun r = CliRun.run("run", "-f", conf.toString(), "--admin", "off");
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err())
        .contains(
            conf
                + ":5: vrrp_instance B: virtual_router_id 9 is already "
                + "used on interface eth0 by A");
  }

  /**
   * Without CAP_NET_RAW and CAP_NET_ADMIN the raw sockets would fail with a bare EPERM; the run
   * names the instance and the capabilities before it opens any.
   */
  @Test
  // FairwayProcess (the test kit's) waits for its process in close(): an interrupt there ends the
  // test, which is what it should do.
  @SuppressWarnings("try")
  void withoutTheCapabilitiesTheRunStopsWithOneLine() throws Exception {
    Assumptions.assumeTrue(
        "root".equals(System.getProperty("user.name")),
        "dropping capabilities from the bounding set needs root");
    String setpriv = ExternalPrograms.require("setpriv", "/usr/bin/setpriv").toString();
    Path conf = dir.resolve("vrrp.conf");
    Files.writeString(
        conf,
        "vrrp_instance VI_1 {\n  interface lo\n"
            + "  virtual_router_id 51\n  virtual_ipaddress {\n    192.0.2.1/24\n  }\n}\n");
    try (FairwayProcess p =
        FairwayProcess.fromTestClasspath()
            .prefix(setpriv, "--bounding-set", "-net_admin,-net_raw", "--")
            .log(dir.resolve("fairway.log"))
            .start("run", "-f", conf.toString(), "--admin", "off")) {
      assertThat(p.awaitExit(Duration.ofSeconds(60))).isEqualTo(1);
      assertThat(p.log().lines().filter(l -> l.startsWith("fairway: ")))
          .containsExactly(
              "fairway: "
                  + conf
                  + ":1: vrrp_instance VI_1: VRRP needs CAP_NET_ADMIN and CAP_NET_RAW, which this"
                  + " fairway run does not have; run it as root or with these capabilities");
      assertThat(p.log()).doesNotContain("Exception");
    }
  }
}
