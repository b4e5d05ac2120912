package io.fairway.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fairway.check.config.CheckSpecs;
import io.fairway.check.engine.CheckEngine;
import io.fairway.daemon.discovery.Answer;
import io.fairway.daemon.discovery.DiscoveryLoop;
import io.fairway.daemon.discovery.DnsStatus;
import io.fairway.daemon.discovery.Named;
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
 * real_server_dns through the daemon's reload path against BIND: servers added, deleted and added
 * again with nsupdate (named keeps running) reach the table, one that left is drained before it is
 * removed, and a name server that goes away leaves the table as it is.
 */
class BindDiscoveryReloadTest {
  @TempDir Path dir;

  // Started by each test that needs it, before any use; closed after each when started.
  @SuppressWarnings("NullAway.Init")
  Named named;

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
    if (named != null) {
      named.close();
    }
  }

  List<String> dests() {
    return table.lines().stream()
        .filter(l -> l.contains("->"))
        .map(l -> l.replaceAll(".*-> ", ""))
        .toList();
  }

  @Test
  void serversAppearLeaveAndReturnWithoutARestartOfTheNameServer() throws Exception {
    named =
        new Named(
            dir, "web1 IN A 127.0.0.41\nweb2 IN A 127.0.0.42\n_web._tcp IN SRV 0 1 8081 web1\n");
    Path file = dir.resolve("keepalived.conf");
    Files.writeString(
        file,
        "virtual_server 10.16.0.2 80 {\n    lb_algo mh\n    lb_kind NAT\n    protocol TCP\n"
            + "    real_server_dns _web._tcp.pool.test {\n        type SRV\n"
            + "        nameserver 127.0.0.1 "
            + named.port
            + "\n        refresh 1\n        hold 2\n        weight srv\n    }\n}\n");
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
        .until(() -> dests().equals(List.of("127.0.0.41:8081 w=1")));

    named.update("update add _web._tcp.pool.test 1 SRV 0 4 8082 web2.pool.test.");
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> dests().equals(List.of("127.0.0.41:8081 w=1", "127.0.0.42:8082 w=4")));

    // web1 leaves the answer: drained (weight 0, its connections go on) for hold, then removed.
    named.update("update delete _web._tcp.pool.test SRV 0 1 8081 web1.pool.test.");
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> dests().equals(List.of("127.0.0.41:8081 w=0", "127.0.0.42:8082 w=4")));
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> dests().equals(List.of("127.0.0.42:8082 w=4")));

    named.update("update add _web._tcp.pool.test 1 SRV 0 1 8081 web1.pool.test.");
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> dests().equals(List.of("127.0.0.41:8081 w=1", "127.0.0.42:8082 w=4")));
    String status = DnsStatus.text(dns.discovery().states());
    assertThat(status)
        .contains("_web._tcp.pool.test SRV (virtual_server 10.16.0.2:80, ")
        .contains("found 2 servers")
        .contains("web1.pool.test:8081, web2.pool.test:8082");

    named.stop();
    int reloads = daemon.reloads();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> dns.discovery().states().get(0).lastAnswer().outcome() == Answer.Outcome.FAILED);
    assertThat(daemon.reloads()).isEqualTo(reloads);
    assertThat(dests()).containsExactly("127.0.0.41:8081 w=1", "127.0.0.42:8082 w=4");
  }
}
