package io.fairway.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fairway.testkit.ExternalPrograms;
import io.fairway.testkit.FreePorts;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code fairway pick} on a virtual server whose real servers come from DNS: each block is resolved
 * once (dnsmasq answers) and the picks are among the servers of that answer; the backup of a higher
 * SRV priority only when every server of the lowest is down.
 */
class PickDnsTest {
  @TempDir Path dir;
  Process dnsmasq;
  int port;

  @BeforeEach
  void start() throws Exception {
    Path bin = ExternalPrograms.require("dnsmasq", "/usr/sbin/dnsmasq");
    port = FreePorts.loopback();
    dnsmasq =
        new ProcessBuilder(
                bin.toString(),
                "--no-daemon",
                "--log-facility=-",
                "--port=" + port,
                "--listen-address=127.0.0.1",
                "--bind-interfaces",
                "--no-resolv",
                "--no-hosts",
                "--conf-file=/dev/null",
                "--user=root",
                "--local=/pool.test/",
                "--srv-host=_web._tcp.pool.test,web2.pool.test,8082,0,1",
                "--srv-host=_web._tcp.pool.test,web1.pool.test,8081,0,1",
                // A higher priority: a backup, tier 1.
                "--srv-host=_web._tcp.pool.test,web3.pool.test,8083,10,1",
                "--host-record=web1.pool.test,127.0.0.11",
                "--host-record=web2.pool.test,127.0.0.12",
                "--host-record=web3.pool.test,127.0.0.13")
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("dnsmasq.log").toFile())
            .start();
    // dnsmasq says "started" once its sockets are bound.
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> Files.readString(dir.resolve("dnsmasq.log")).contains("started"));
  }

  @AfterEach
  void stop() throws Exception {
    dnsmasq.destroy();
    dnsmasq.waitFor();
  }

  Path conf() throws Exception {
    Path f = dir.resolve("keepalived.conf");
    Files.writeString(
        f,
        "virtual_server 192.0.2.10 80 {\n    lb_algo mh\n    lb_kind NAT\n    protocol TCP\n"
            + "    real_server_dns _web._tcp.pool.test {\n        type SRV\n"
            + "        nameserver 127.0.0.1 "
            + port
            + "\n    }\n    real_server_dns gone.pool.test {\n        type A\n"
            + "        nameserver 127.0.0.1 "
            + port
            + "\n    }\n}\n");
    return f;
  }

  static String keys(int n) {
    StringBuilder keys = new StringBuilder();
    for (int i = 0; i < n; i++) {
      keys.append("198.51.100.").append(i).append(":4000\n");
    }
    return keys.toString();
  }

  static CliRun pick(String keys, String... args) {
    String[] full = new String[args.length + 1];
    full[0] = "pick";
    System.arraycopy(args, 0, full, 1, args.length);
    return CliRun.run(new ByteArrayInputStream(keys.getBytes(StandardCharsets.UTF_8)), full);
  }

  @Test
  void picksAmongTheServersOfOneResolution() throws Exception {
    StringBuilder keys = new StringBuilder();
    for (int i = 0; i < 200; i++) {
      keys.append("198.51.100.").append(i).append(":4000\n");
    }
    Path f = conf();
    CliRun r = pick(keys.toString(), "-f", f.toString(), "--vs", "192.0.2.10:80");
    assertThat(r.code()).as(r.err()).isZero();
    List<String> picks = r.out().lines().toList();
    assertThat(picks).hasSize(200);
    assertThat(picks).containsOnly("web1.pool.test:8081", "web2.pool.test:8082");
    assertThat(picks).contains("web1.pool.test:8081", "web2.pool.test:8082");
    // The block that found nothing says so, naming its line; the other still answers.
    assertThat(r.err().strip())
        .isEqualTo(
            "fairway: " + f + ":9: real_server_dns gone.pool.test: no server (gone: NXDOMAIN)");

    CliRun down =
        pick(
            keys.toString(),
            "-f",
            f.toString(),
            "--vs",
            "192.0.2.10:80",
            "--down",
            "web1.pool.test:8081");
    assertThat(down.code()).as(down.err()).isZero();
    assertThat(down.out().lines().toList()).hasSize(200).containsOnly("web2.pool.test:8082");
  }

  @Test
  void picksTheBackupOnlyWhenEveryServerOfTheLowerPriorityIsDown() throws Exception {
    String f = conf().toString();
    // One of the two priority-0 servers down: the other takes every key, the backup none.
    CliRun one = pick(keys(200), "-f", f, "--vs", "192.0.2.10:80", "--down", "web2.pool.test:8082");
    assertThat(one.code()).as(one.err()).isZero();
    assertThat(one.out().lines().toList()).hasSize(200).containsOnly("web1.pool.test:8081");

    CliRun both =
        pick(
            keys(200),
            "-f",
            f,
            "--vs",
            "192.0.2.10:80",
            "--down",
            "web1.pool.test:8081,web2.pool.test:8082");
    assertThat(both.code()).as(both.err()).isZero();
    assertThat(both.out().lines().toList()).hasSize(200).containsOnly("web3.pool.test:8083");
  }
}
