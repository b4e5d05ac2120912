package io.fairway.daemon.uml;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.testkit.uml.Uml;
import java.io.InputStream;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Properties;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The kernel's IPVS connection sync daemon on one user-mode Linux kernel (issue 15): the netlink
 * commands against {@code ipvsadm -L --daemon}, and {@code fairway run} starting and stopping the
 * daemons as keepalived does, and reloads that change and remove them. One boot runs
 * resources/syncd/syncd.sh.
 */
class SyncDaemonUmlTest {
  private static Uml.Result r;
  private static Properties netlink;

  @BeforeAll
  static void boot() throws Exception {
    Uml.assumeAvailable();
    Path scenario = Files.createTempDirectory("sync-uml-");
    for (String f :
        List.of(
            "syncd.sh",
            "both.conf",
            "vrrp.conf",
            "nosuch.conf",
            "reload-none.conf",
            "reload.conf",
            "reload-changed.conf",
            "reload-removed.conf")) {
      try (InputStream in = SyncDaemonUmlTest.class.getResourceAsStream("/syncd/" + f)) {
        Files.copy(Objects.requireNonNull(in, f), scenario.resolve(f));
      }
    }
    Files.writeString(
        scenario.resolve("fairway.sh"),
        "#!/bin/sh\nexec "
            + Uml.javaCommand(Uml.testClasspath(), "io.fairway.cli.Main")
            + " \"$@\"\n");
    Files.writeString(
        scenario.resolve("netlink.sh"),
        "#!/bin/sh\nexec "
            + Uml.javaCommand(Uml.testClasspath(), SyncDaemonNetlinkMain.class.getName())
            + " \"$@\"\n");
    Path out = Path.of("target", "uml-syncd").toAbsolutePath();
    Uml.clean(out);
    r =
        Uml.builder()
            .command(
                "sh "
                    + Uml.quote(scenario.resolve("syncd.sh").toString())
                    + " "
                    + Uml.quote(scenario.toString()))
            .outputDir(out)
            .timeout(Duration.ofMinutes(9))
            .run();
    assertThat(r.exitCode()).as(r.diagnostics()).isZero();
    assertThat(r.file("netlink.code").strip()).as(r.file("netlink.out")).isEqualTo("0");
    netlink = new Properties();
    netlink.load(new StringReader(r.file("netlink.properties")));
  }

  @Test
  void everyNetlinkStepAgreesWithIpvsadm() {
    for (String step :
        List.of("0-empty", "1-master", "2-both", "3-backup", "4-none", "5-ipvsadm", "6-stopped")) {
      assertThat(netlink.getProperty(step + ".ipvsadm"))
          .as(step)
          .isEqualTo("0:" + netlink.getProperty(step + ".netlink"));
    }
  }

  @Test
  void theKernelFillsInItsDefaultsAndKeepsWhatWasAsked() {
    assertThat(netlink.getProperty("0-empty.netlink")).isEmpty();
    assertThat(netlink.getProperty("1-master.netlink"))
        .isEqualTo(
            "master sync daemon "
                + "(mcast=syd0, syncid=51, maxlen=1472, group=224.0.0.81, port=8848, ttl=1)");
    assertThat(netlink.getProperty("2-both.netlink").lines())
        .containsExactly(
            "master sync daemon (mcast=syd0, syncid=51, maxlen=1472, group=224.0.0.81, port=8848, ttl=1)",
            "backup sync daemon (mcast=syd0, syncid=200, maxlen=1400, group=239.1.2.3, port=8850, ttl=2)");
    assertThat(netlink.getProperty("3-backup.netlink")).startsWith("backup sync daemon");
    assertThat(netlink.getProperty("4-none.netlink")).isEmpty();
    assertThat(netlink.getProperty("5-ipvsadm.netlink"))
        .startsWith("master sync daemon (mcast=syd0, syncid=9,");
    assertThat(netlink.getProperty("6-stopped.netlink")).isEmpty();
  }

  @Test
  void refusalsAreTypedOneLineErrors() {
    assertThat(netlink.getProperty("eexist"))
        .isEqualTo(
            "EXISTS IPVS start master sync daemon on "
                + "syd0: a master sync daemon is running already (EEXIST)");
    assertThat(netlink.getProperty("esrch"))
        .isEqualTo("NO_SERVICE IPVS stop master sync daemon: " + "none is running (ESRCH)");
    assertThat(netlink.getProperty("enodev"))
        .isEqualTo(
            "NOT_FOUND IPVS start master sync daemon" + " on nosuch0: no such interface (ENODEV)");
  }

  @Test
  void withoutAnInstanceFairwayRunsMasterAndBackupUntilSigterm() {
    assertThat(r.file("both-running.txt").lines())
        .containsExactly(
            "master sync daemon (mcast=syd0, syncid=7, maxlen=1472, group=224.0.0.81, port=8848, ttl=2)",
            "backup sync daemon (mcast=syd0, syncid=7, maxlen=1472, group=224.0.0.81, port=8848, ttl=2)");
    assertThat(r.file("both-status.txt"))
        .contains("IPVS sync daemon: syd0 syncid 7, no VRRP " + "instance: wants master and backup")
        .contains("  kernel: master sync daemon (mcast=syd0, syncid=7,")
        .contains("  kernel: backup sync daemon (mcast=syd0, syncid=7,");
    assertThat(r.file("both.code").strip()).as(r.file("both.log")).isEqualTo("0");
    assertThat(r.file("both-after.txt")).isEmpty();
    assertThat(r.file("both.log"))
        .contains("started the master sync daemon on syd0 (syncid 7)")
        .contains("stopped the backup sync daemon")
        .doesNotContain("Exception");
  }

  @Test
  void followingAnInstanceTheDaemonIsBackupThenMasterThenStopped() {
    assertThat(r.file("vrrp-backup.txt").strip())
        .as(r.file("vrrp.log"))
        .isEqualTo(
            "backup sync daemon (mcast=syd0, syncid=61, maxlen=1472, group=224.0.0.81, "
                + "port=8848, ttl=1)");
    assertThat(r.file("vrrp-master.txt").strip())
        .as(r.file("vrrp.log"))
        .isEqualTo(
            "master sync daemon (mcast=syd0, syncid=61, maxlen=1472, group=224.0.0.81, "
                + "port=8848, ttl=1)");
    assertThat(r.file("vrrp-addr.txt")).contains("10.99.0.100/24");
    assertThat(r.file("vrrp-status.txt"))
        .contains("VI_1")
        .contains("MASTER")
        .contains("IPVS sync daemon: syd0 syncid 61, follows VI_1 (MASTER): wants master")
        .contains("  kernel: master sync daemon (mcast=syd0, syncid=61,");
    assertThat(r.file("vrrp.code").strip()).as(r.file("vrrp.log")).isEqualTo("0");
    assertThat(r.file("vrrp-after.txt")).isEmpty();
    String log = r.file("vrrp.log");
    assertThat(log.indexOf("started the backup sync daemon"))
        .isLessThan(log.indexOf("stopped the backup sync daemon"));
    assertThat(log.indexOf("stopped the backup sync daemon"))
        .isLessThan(log.indexOf("started the master sync daemon"));
    assertThat(log).contains("stopped the master sync daemon").doesNotContain("Exception");
  }

  @Test
  void anInterfaceThatDoesNotExistIsOneLineAndExit1() {
    assertThat(r.file("nosuch.code").strip()).isEqualTo("1");
    assertThat(r.file("nosuch.err").lines().filter(l -> l.startsWith("fairway: ")))
        .singleElement(org.assertj.core.api.InstanceOfAssertFactories.STRING)
        .matches("fairway: /.*/nosuch\\.conf:2: lvs_sync_daemon: interface nosuch0 does not exist");
    assertThat(r.file("nosuch-daemons.txt")).isEmpty();
    assertThat(r.file("nosuch-table.txt")).doesNotContain("10.16.0.1");
  }

  /** {@code ipvsadm -L --daemon}'s line for a daemon of the admin API's JSON. */
  private static String ipvsadmLine(com.fasterxml.jackson.databind.JsonNode d) {
    return d.get("role").asText()
        + " sync daemon (mcast="
        + d.get("interface_name").asText()
        + ", syncid="
        + d.get("sync_id").asInt()
        + ", maxlen="
        + d.get("max_len").asInt()
        + ", group="
        + d.get("group").asText()
        + ", port="
        + d.get("port").asInt()
        + ", ttl="
        + d.get("ttl").asInt()
        + ")";
  }

  @Test
  void reloadsAddVrrpAndTheDaemonRestartItWithItsNewInterfaceAndIdThenStopIt() throws Exception {
    String log = r.file("reload.log");
    // Started with a virtual server alone: no daemon, no VRRP.
    assertThat(r.file("reload-0.txt")).as(log).isEmpty();
    assertThat(r.file("reload-0-status.txt")).contains("10.16.0.1:80").doesNotContain("VI_1");
    // Added: VI_1 starts (state MASTER: master after one advert interval) and the daemon follows.
    assertThat(r.file("reload-1.txt").lines())
        .as(log)
        .singleElement(org.assertj.core.api.InstanceOfAssertFactories.STRING)
        .startsWith("master sync daemon (mcast=syd0, syncid=61,");
    // Changed: the old master daemon stopped, the new one started as master (VI_1 is master).
    List<String> changed = r.file("reload-2.txt").lines().toList();
    assertThat(changed)
        .as(log)
        .singleElement(org.assertj.core.api.InstanceOfAssertFactories.STRING)
        .startsWith("master sync daemon (mcast=syd1, syncid=62,");
    assertThat(r.file("reload-2-status.txt"))
        .contains("IPVS sync daemon: syd1 syncid 62, follows VI_1 (MASTER): wants master")
        .contains("  kernel: " + changed.get(0));
    var json = io.fairway.daemon.Json.mapper().readTree(r.file("reload-2-vrrp.json"));
    var sync = json.get("lvs_sync_daemon");
    assertThat(sync.get("interface_name").asText()).isEqualTo("syd1");
    assertThat(sync.get("sync_id").asInt()).isEqualTo(62);
    assertThat(sync.get("follows").asText()).isEqualTo("VI_1");
    assertThat(sync.get("instance_state").asText()).isEqualTo("master");
    assertThat(sync.get("kernel")).hasSize(1);
    assertThat(ipvsadmLine(sync.get("kernel").get(0))).isEqualTo(changed.get(0));
    // Removed: nothing runs in the kernel; VRRP (still master) and the table stay.
    assertThat(r.file("reload-3.txt")).as(log).isEmpty();
    assertThat(r.file("reload-3-status.txt")).doesNotContain("IPVS sync daemon").contains("VI_1");
    assertThat(
            io.fairway.daemon.Json.mapper()
                .readTree(r.file("reload-3-vrrp.json"))
                .get("lvs_sync_daemon")
                .isNull())
        .isTrue();
    assertThat(r.file("reload-3-addr.txt")).contains("10.99.0.100/24");
    assertThat(r.file("reload-3-table.txt")).contains("10.16.0.1:80");
    // VRRP removed: the master let its address go; the table stays.
    assertThat(r.file("reload-4-addr.txt")).as(log).doesNotContain("10.99.0.100");
    assertThat(r.file("reload-4-status.txt")).doesNotContain("VI_1").contains("10.16.0.1:80");
    assertThat(r.file("reload-4-table.txt")).contains("10.16.0.1:80");
    assertThat(r.file("reload.code").strip()).as(log).isEqualTo("0");
    assertThat(r.file("reload-after.txt")).isEmpty();
    assertThat(log)
        .contains("VRRP: started 1 instances by the reload")
        .contains("lvs_sync_daemon added by the reload: sync daemons started")
        .contains("started the master sync daemon on syd0 (syncid 61)")
        .contains("started the master sync daemon on syd1 (syncid 62)")
        .contains("VRRP: every vrrp_instance removed by the reload; masters hand over")
        .contains(
            "the reload changed the daemons: (mcast=syd0, syncid=61) -> (mcast=syd1, syncid=62)")
        .contains("lvs_sync_daemon changed (daemons restarted)")
        .contains("lvs_sync_daemon removed by the reload: stopping the sync daemons")
        .contains("lvs_sync_daemon removed")
        .doesNotContain("reload refused")
        .doesNotContain("Exception");
  }
}
