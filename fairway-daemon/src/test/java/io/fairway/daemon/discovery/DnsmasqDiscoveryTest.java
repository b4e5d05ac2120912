package io.fairway.daemon.discovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fairway.config.KeepalivedConfig;
import io.fairway.config.ParseOptions;
import io.fairway.config.model.Config;
import io.fairway.config.model.RealServer;
import io.fairway.config.model.TcpCheck;
import io.fairway.testkit.ExternalPrograms;
import io.fairway.testkit.FreePorts;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** real_server_dns against a real name server: Debian's dnsmasq on a loopback port, no root. */
class DnsmasqDiscoveryTest {
  @TempDir Path dir;
  int port;
  Process dnsmasq;
  final DnsResolver resolver = new DnsResolver(Duration.ofSeconds(2));

  @BeforeEach
  void start() throws Exception {
    Path bin = ExternalPrograms.require("dnsmasq", "/usr/sbin/dnsmasq");
    port = FreePorts.loopback();
    List<String> cmd =
        new ArrayList<>(
            List.of(
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
                // Deliberately not in address order: the members must come out sorted.
                "--srv-host=_web._tcp.pool.test,web2.pool.test,8082,0,3",
                "--srv-host=_web._tcp.pool.test,web1.pool.test,8081,0,5",
                "--srv-host=_web._tcp.pool.test,spare.pool.test,8089,10,1",
                "--host-record=web1.pool.test,127.0.0.11",
                "--host-record=web2.pool.test,127.0.0.12",
                "--host-record=spare.pool.test,127.0.0.19",
                "--host-record=a.pool.test,127.0.0.22",
                "--host-record=a.pool.test,127.0.0.21"));
    dnsmasq =
        new ProcessBuilder(cmd)
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("dnsmasq.log").toFile())
            .start();
  }

  @AfterEach
  void stop() throws Exception {
    dnsmasq.destroy();
    dnsmasq.waitFor();
    resolver.close();
  }

  Config config(String blocks) {
    String text =
        "virtual_server 127.0.0.1 80 {\n    protocol TCP\n    lb_algo mh\n"
            + blocks.replace("NS", "nameserver 127.0.0.1 " + port)
            + "}\n";
    return KeepalivedConfig.parse("test.conf", text, dir, ParseOptions.defaults()).config();
  }

  static List<String> names(Config c) {
    return c.virtualServers().get(0).realServers().stream().map(RealServer::name).toList();
  }

  @Test
  void srvAnswersBecomeSortedRealServersWithTheTemplatesChecker() {
    Config c =
        config(
            "    real_server_dns _web._tcp.pool.test {\n        type SRV\n        NS\n"
                + "        weight srv\n        TCP_CHECK {\n            connect_timeout 1\n"
                + "        }\n    }\n");
    Discovery d = new Discovery(resolver, Clock.systemUTC());
    // dnsmasq answers once it has bound its port.
    await().atMost(Duration.ofSeconds(30)).until(() -> d.refresh(c).join());
    Config e = d.expand(c);
    // Address order, not the answer's order; the higher SRV priority as a backup tier.
    assertThat(names(e))
        .containsExactly("web1.pool.test:8081", "web2.pool.test:8082", "spare.pool.test:8089");
    assertThat(e.virtualServers().get(0).realServers().stream().map(RealServer::tier))
        .containsExactly(0, 0, 1);
    RealServer web1 = e.virtualServers().get(0).realServers().get(0);
    assertThat(web1.id().toString()).isEqualTo("127.0.0.11:8081");
    assertThat(web1.weight()).isEqualTo(5);
    assertThat(((TcpCheck) web1.checkers().get(0)).endpoint().port()).isEqualTo(8081);
    assertThat(d.states().get(0).lastAnswer().outcome()).isEqualTo(Answer.Outcome.FOUND);

    // The name server goes away: a failed query changes nothing.
    dnsmasq.destroy();
    await().atMost(Duration.ofSeconds(30)).until(() -> !dnsmasq.isAlive());
    assertThat(d.refresh(c).join()).isFalse();
    assertThat(d.states().get(0).lastAnswer().outcome()).isEqualTo(Answer.Outcome.FAILED);
    assertThat(names(d.expand(c)))
        .containsExactly("web1.pool.test:8081", "web2.pool.test:8082", "spare.pool.test:8089");
  }

  @Test
  void aRecordsAndNxdomainAfterHold() {
    Config c =
        config(
            "    real_server_dns a.pool.test {\n        type A\n        NS\n    }\n"
                + "    real_server_dns gone.pool.test {\n        type A\n        NS\n"
                + "        hold 0\n    }\n");
    Discovery d = new Discovery(resolver, Clock.systemUTC());
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> d.refresh(c).join() && d.states().size() == 2);
    assertThat(names(d.expand(c))).containsExactly("127.0.0.21:80", "127.0.0.22:80");
    assertThat(d.states().get(1).lastAnswer().outcome()).isEqualTo(Answer.Outcome.GONE);
    assertThat(d.states().get(1).lastAnswer().error()).isEqualTo("NXDOMAIN");
  }
}
