package io.fairway.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.check.config.CheckSpecs;
import io.fairway.daemon.KeepalivedLoader;
import io.fairway.plan.Plan;
import io.fairway.proxy.ProxyOptions;
import io.fairway.proxy.plane.ProxyTable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * lvs_timeouts on the userspace data plane: tcp N is the relay's idle timeout, udp N a UDP flow's,
 * from each plan the table is handed (start and every reload).
 */
class ProxyOptionsFromConfigTest {
  @TempDir Path dir;
  final ProxyTable table = new ProxyTable(ProxyOptions.builder().ioThreads(1).build(), null);

  @AfterEach
  void close() throws Exception {
    table.close();
  }

  private Plan plan(String globals) throws Exception {
    Path f = dir.resolve("k.conf");
    Files.writeString(
        f,
        "global_defs {\n"
            + globals
            + "}\n"
            + "virtual_server 127.0.0.1 8080 {\n lb_kind PROXY\n protocol TCP\n"
            + " real_server 127.0.0.2 8080 {\n }\n}\n");
    return new KeepalivedLoader(true, CheckSpecs::from).load(f).plan();
  }

  private ProxyOptions options(String globals) throws Exception {
    table.apply(plan(globals));
    return table.options();
  }

  @Test
  void lvsTimeoutsTcpBecomesTheIdleTimeoutOfEstablishedConnections() throws Exception {
    assertThat(options(" lvs_timeouts tcp 42 udp 7\n").idleTimeout())
        .isEqualTo(Duration.ofSeconds(42));
  }

  @Test
  void lvsTimeoutsUdpBecomesTheLifetimeOfAnIdleUdpFlow() throws Exception {
    assertThat(options(" lvs_timeouts tcp 42 udp 7\n").udpTimeout())
        .isEqualTo(Duration.ofSeconds(7));
  }

  @Test
  void withoutItTheProxyKeepsItsDefault() throws Exception {
    assertThat(options(" lvs_timeouts udp 7\n").idleTimeout())
        .isEqualTo(ProxyOptions.defaults().idleTimeout());
    assertThat(options(" lvs_timeouts tcp 42\n").udpTimeout())
        .isEqualTo(ProxyOptions.defaults().udpTimeout());
    assertThat(options("").idleTimeout()).isEqualTo(ProxyOptions.defaults().idleTimeout());
  }

  @Test
  void aReloadChangesThemAndOneWithoutTheKeywordRestoresTheTablesOwn() throws Exception {
    assertThat(options(" lvs_timeouts tcp 42 udp 7\n").idleTimeout())
        .isEqualTo(Duration.ofSeconds(42));
    assertThat(options(" lvs_timeouts tcp 5 udp 3\n"))
        .satisfies(
            o -> {
              assertThat(o.idleTimeout()).isEqualTo(Duration.ofSeconds(5));
              assertThat(o.udpTimeout()).isEqualTo(Duration.ofSeconds(3));
            });
    assertThat(options("")).isEqualTo(ProxyOptions.builder().ioThreads(1).build());
  }
}
