package io.fairway.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.check.config.CheckSpecs;
import io.fairway.daemon.KeepalivedLoader;
import io.fairway.proxy.ProxyOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** lvs_timeouts on the userspace data plane: tcp N is the relay's idle timeout, udp N a UDP flow's. */
class ProxyOptionsFromConfigTest {
  @TempDir Path dir;

  private ProxyOptions options(String globals) throws Exception {
    Path f = dir.resolve("k.conf");
    Files.writeString(f, "global_defs {\n" + globals + "}\n"
        + "virtual_server 127.0.0.1 8080 {\n lb_kind PROXY\n protocol TCP\n"
        + " real_server 127.0.0.2 8080 {\n }\n}\n");
    return RunCommand.proxyOptions(new KeepalivedLoader(true, CheckSpecs::from).load(f));
  }

  @Test
  void lvsTimeoutsTcpBecomesTheIdleTimeoutOfEstablishedConnections() throws Exception {
    assertThat(options(" lvs_timeouts tcp 42 udp 7\n").idleTimeout()).isEqualTo(Duration.ofSeconds(42));
  }

  @Test
  void lvsTimeoutsUdpBecomesTheLifetimeOfAnIdleUdpFlow() throws Exception {
    assertThat(options(" lvs_timeouts tcp 42 udp 7\n").udpTimeout()).isEqualTo(Duration.ofSeconds(7));
  }

  @Test
  void withoutItTheProxyKeepsItsDefault() throws Exception {
    assertThat(options(" lvs_timeouts udp 7\n").idleTimeout()).isEqualTo(ProxyOptions.defaults().idleTimeout());
    assertThat(options(" lvs_timeouts tcp 42\n").udpTimeout()).isEqualTo(ProxyOptions.defaults().udpTimeout());
    assertThat(options("").idleTimeout()).isEqualTo(ProxyOptions.defaults().idleTimeout());
  }
}
