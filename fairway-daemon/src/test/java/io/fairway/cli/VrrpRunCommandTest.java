package io.fairway.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
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
}
