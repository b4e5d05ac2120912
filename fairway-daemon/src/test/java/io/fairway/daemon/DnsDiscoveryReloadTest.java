package io.fairway.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fairway.check.config.CheckSpecs;
import io.fairway.check.engine.CheckEngine;
import io.fairway.daemon.discovery.DiscoveryLoop;
import io.fairway.testkit.ExternalPrograms;
import io.fairway.testkit.FreePorts;
import io.fairway.testkit.RecordingTable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * real_server_dns through the daemon's reload path: servers appear, leave and return as dnsmasq's
 * answer changes (its hosts file re-read on SIGHUP), and a SIGHUP reload of Fairway keeps them.
 */
class DnsDiscoveryReloadTest {
  @TempDir Path dir;

  // Started by each test that needs it, before any use; closed after each when started.
  @SuppressWarnings("NullAway.Init")
  Process dnsmasq;

  @SuppressWarnings("NullAway.Init")
  Daemon daemon;

  @SuppressWarnings("NullAway.Init")
  DiscoveryLoop dns;

  final RecordingTable table = new RecordingTable();

  @AfterEach
  void stop() throws Exception {
    if (dns != null) {
      dns.close();
    }
    if (daemon != null) {
      daemon.stop();
    }
    if (dnsmasq != null) {
      dnsmasq.destroy();
      dnsmasq.waitFor();
    }
  }

  void hosts(String... addresses) throws Exception {
    StringBuilder sb = new StringBuilder();
    for (String a : addresses) {
      sb.append(a).append(" pool.test\n");
    }
    Files.writeString(dir.resolve("hosts"), sb.toString());
  }

  void hup() throws Exception {
    new ProcessBuilder("kill", "-HUP", Long.toString(dnsmasq.pid())).start().waitFor();
  }

  List<String> dests() {
    return table.lines().stream()
        .filter(l -> l.contains("->"))
        .map(l -> l.replaceAll(".*-> ", ""))
        .toList();
  }

  @Test
  void serversFollowTheAnswerAndSurviveAReload() throws Exception {
    Path bin = ExternalPrograms.require("dnsmasq", "/usr/sbin/dnsmasq");
    int port = FreePorts.loopback();
    hosts("127.0.0.32", "127.0.0.31");
    dnsmasq =
        new ProcessBuilder(
                bin.toString(),
                "--no-daemon",
                "--port=" + port,
                "--listen-address=127.0.0.1",
                "--bind-interfaces",
                "--no-resolv",
                "--no-hosts",
                "--conf-file=/dev/null",
                "--user=root",
                "--local=/pool.test/",
                "--local-ttl=1",
                "--addn-hosts=" + dir.resolve("hosts"))
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("dnsmasq.log").toFile())
            .start();
    Path file = dir.resolve("keepalived.conf");
    Files.writeString(
        file,
        "virtual_server 10.16.0.1 80 {\n    lb_algo mh\n    lb_kind NAT\n    protocol TCP\n"
            + "    real_server_dns pool.test {\n        type A\n        port 8080\n"
            + "        nameserver 127.0.0.1 "
            + port
            + "\n        refresh 1\n        hold 0\n    }\n}\n");
    dns = new DiscoveryLoop();
    daemon =
        new Daemon(
            file,
            new KeepalivedLoader(false, CheckSpecs::from, dns::expand),
            table,
            CheckEngine::builder,
            Duration.ZERO,
            Clock.systemUTC());
    daemon.start();
    dns.start(daemon::reload);
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> dests().equals(List.of("127.0.0.31:8080 w=1", "127.0.0.32:8080 w=1")));

    // Fairway's own SIGHUP reload: the discovered servers stay.
    assertThat(daemon.reload()).isNull();
    assertThat(dests()).containsExactly("127.0.0.31:8080 w=1", "127.0.0.32:8080 w=1");

    // One leaves, another comes.
    hosts("127.0.0.33", "127.0.0.31");
    hup();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> dests().equals(List.of("127.0.0.31:8080 w=1", "127.0.0.33:8080 w=1")));

    // The name server goes away: nothing changes (a failed query keeps the last answer).
    dnsmasq.destroy();
    dnsmasq.waitFor();
    int reloads = daemon.reloads();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                dns.discovery().states().get(0).lastAnswer().outcome()
                    == io.fairway.daemon.discovery.Answer.Outcome.FAILED);
    assertThat(daemon.reloads()).isEqualTo(reloads);
    assertThat(dests()).containsExactly("127.0.0.31:8080 w=1", "127.0.0.33:8080 w=1");
  }
}
