package io.fairway.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.fairway.config.model.ProxyProtocol;
import io.fairway.config.model.VirtualServer;
import org.junit.jupiter.api.Test;

/** {@code proxy_protocol accept} and {@code send_proxy v1|v2}: parsed, warned, dumped back. */
class ProxyProtocolConfigTest {
  private static final String PROXY =
      "virtual_server 127.0.0.1 80 {\n"
          + "    lb_kind PROXY\n"
          + "    protocol TCP\n"
          + "    proxy_protocol accept\n"
          + "    real_server 127.0.0.2 80 {\n"
          + "        send_proxy v2\n"
          + "    }\n"
          + "    real_server 127.0.0.3 80 {\n"
          + "        send_proxy v1\n"
          + "    }\n"
          + "    real_server 127.0.0.4 80 {\n"
          + "    }\n"
          + "}\n";

  @Test
  void parsedAndDumpedBack() {
    ParseResult r = Fixtures.parse(PROXY);
    assertThat(r.warnings()).isEmpty();
    VirtualServer vs = r.config().virtualServers().get(0);
    assertThat(vs.proxy().proxyProtocol().accept()).isTrue();
    assertThat(vs.realServers())
        .extracting(rs -> rs.backend().proxyProtocol().send())
        .containsExactly(
            ProxyProtocol.Version.V2, ProxyProtocol.Version.V1, ProxyProtocol.Version.NONE);
    String dump = KeepalivedConfig.dump(r.config());
    assertThat(dump).contains("proxy_protocol accept", "send_proxy v2", "send_proxy v1");
    DumpRoundTripTest.assertRoundTrip(r.config());
  }

  @Test
  void absentMeansNeither() {
    VirtualServer vs =
        Fixtures.parse(
                PROXY
                    .replace("    proxy_protocol accept\n", "")
                    .replaceAll("        send_proxy v.\n", ""))
            .config()
            .virtualServers()
            .get(0);
    assertThat(vs.proxy().proxyProtocol()).isEqualTo(ProxyProtocol.NONE);
    assertThat(vs.realServers())
        .allMatch(rs -> rs.backend().proxyProtocol().equals(ProxyProtocol.NONE));
  }

  private static void error(String text, int line, String message) {
    ConfigException e = catchThrowableOfType(ConfigException.class, () -> Fixtures.parse(text));
    assertThat(e).as("expected a ConfigException").isNotNull();
    assertThat(e.errors())
        .anySatisfy(
            d -> {
              assertThat(d.file()).isEqualTo("test.conf");
              assertThat(d.line()).isEqualTo(line);
              assertThat(d.message()).contains(message);
            });
  }

  @Test
  void badValuesAreOneErrorAtTheirLine() {
    error(PROXY.replace("proxy_protocol accept", "proxy_protocol yes"), 4, "expected 'accept'");
    error(PROXY.replace("proxy_protocol accept", "proxy_protocol"), 4, "proxy_protocol");
    error(PROXY.replace("send_proxy v2", "send_proxy v3"), 6, "expected v1 or v2, got 'v3'");
    error(PROXY.replace("send_proxy v2", "send_proxy"), 6, "send_proxy");
  }

  @Test
  void warnedWhereTheKernelCarriesTheService() {
    ParseResult r = Fixtures.parse(PROXY.replace("lb_kind PROXY", "lb_kind NAT"));
    assertThat(r.warnings())
        .anySatisfy(
            d -> {
              assertThat(d.line()).isEqualTo(4);
              assertThat(d.message()).contains("proxy_protocol is honoured by the userspace");
            })
        .anySatisfy(
            d -> {
              assertThat(d.line()).isEqualTo(6);
              assertThat(d.message()).contains("send_proxy is honoured by the userspace");
            });
    ParseResult udp =
        Fixtures.parse(
            PROXY.replace("lb_kind PROXY", "lb_kind NAT").replace("protocol TCP", "protocol UDP"));
    assertThat(udp.warnings())
        .anySatisfy(d -> assertThat(d.message()).contains("no effect on a UDP service"));
  }
}
