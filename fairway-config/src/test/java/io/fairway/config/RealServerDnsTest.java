package io.fairway.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.fairway.config.model.Config;
import io.fairway.config.model.DnsDiscovery;
import io.fairway.config.model.DnsMember;
import io.fairway.config.model.HttpCheck;
import io.fairway.config.model.RealServer;
import io.fairway.config.model.TcpCheck;
import io.fairway.config.model.VirtualServer;
import java.net.InetAddress;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** {@code real_server_dns}: parsed, checked, written back, and its template aimed per answer. */
class RealServerDnsTest {
  static final String VS = "virtual_server 127.0.0.1 80 {\n    protocol TCP\n";

  static VirtualServer vs(String block) {
    Config c = Fixtures.parse(VS + block + "}\n").config();
    return c.virtualServers().get(0);
  }

  @Test
  void srvBlockWithATemplateChecker() {
    VirtualServer vs =
        vs(
            "    real_server_dns _web._tcp.service.consul. {\n"
                + "        type srv\n"
                + "        nameserver 127.0.0.1 8600\n"
                + "        nameserver ::1\n"
                + "        refresh 5\n"
                + "        hold 30\n"
                + "        max_servers 8\n"
                + "        weight srv\n"
                + "        inhibit_on_failure\n"
                + "        slow_start 10\n"
                + "        TCP_CHECK {\n            connect_timeout 2\n        }\n"
                + "    }\n");
    assertThat(vs.realServers()).isEmpty();
    DnsDiscovery d = vs.discovery().get(0);
    assertThat(d.name()).isEqualTo("_web._tcp.service.consul");
    assertThat(d.type()).isEqualTo(DnsDiscovery.RecordType.SRV);
    assertThat(d.nameservers())
        .extracting(Object::toString)
        .containsExactly("127.0.0.1:8600", "[::1]:53");
    assertThat(d.refresh()).isEqualTo(Duration.ofSeconds(5));
    assertThat(d.hold()).isEqualTo(Duration.ofSeconds(30));
    assertThat(d.maxServers()).isEqualTo(8);
    assertThat(d.srvWeight()).isTrue();
    assertThat(d.template().inhibitOnFailure()).isTrue();
    assertThat(d.template().slowStart()).isEqualTo(Duration.ofSeconds(10));

    RealServer rs = DnsMember.of(d, InetAddress.getLoopbackAddress(), 8081, "web1.node:8081", 7);
    assertThat(rs.id().toString()).isEqualTo("127.0.0.1:8081");
    assertThat(rs.name()).isEqualTo("web1.node:8081");
    assertThat(rs.ident()).isEqualTo("web1.node:8081");
    assertThat(rs.weight()).isEqualTo(7);
    assertThat(rs.checkPort()).isEqualTo(8081);
    TcpCheck t = (TcpCheck) rs.checkers().get(0);
    assertThat(t.endpoint().address()).isEqualTo(InetAddress.getLoopbackAddress());
    assertThat(t.endpoint().port()).isEqualTo(8081);
    assertThat(t.connectTimeout()).isEqualTo(Duration.ofSeconds(2));
  }

  @Test
  void aRecordsTakeTheVirtualServersPortAndKeepAnExplicitConnectPort() throws Exception {
    VirtualServer vs =
        vs(
            "    real_server 127.0.0.9 80 {\n    }\n"
                + "    real_server_dns pool.example {\n"
                + "        type A\n"
                + "        weight 3\n"
                + "        HTTP_GET {\n            url {\n                path /health\n"
                + "            }\n            connect_port 9000\n        }\n"
                + "    }\n");
    assertThat(vs.realServers()).hasSize(1);
    DnsDiscovery d = vs.discovery().get(0);
    assertThat(d.port()).isEqualTo(80);
    assertThat(d.nameservers()).isEmpty();
    assertThat(d.refresh()).isEqualTo(DnsDiscovery.DEFAULT_REFRESH);
    InetAddress a = InetAddress.getByName("127.0.0.5");
    RealServer rs = DnsMember.of(d, a, 80, "127.0.0.5:80", 0);
    assertThat(rs.weight()).isEqualTo(3);
    HttpCheck h = (HttpCheck) rs.checkers().get(0);
    assertThat(h.endpoint().address()).isEqualTo(a);
    assertThat(h.endpoint().port()).isEqualTo(9000);
  }

  @Test
  void aVirtualServerWithOnlyADnsBlockIsKept() {
    Config c =
        Fixtures.parse(VS + "    real_server_dns pool.example {\n        type A\n    }\n}\n")
            .config();
    assertThat(c.virtualServers()).hasSize(1);
  }

  @Test
  void dumpWritesTheBlockBackAndReadsTheSame() {
    for (String block :
        new String[] {
          "    real_server_dns _web._tcp.example {\n        type SRV\n        weight srv\n"
              + "        nameserver 127.0.0.1 5353\n"
              + "        TCP_CHECK {\n            connect_timeout 2\n        }\n    }\n",
          "    real_server_dns pool.example {\n        type A\n        port 8080\n"
              + "        weight 2\n        max_conns 5\n        lvs_method NAT\n"
              + "        MISC_CHECK {\n            misc_path /bin/true\n        }\n"
              + "        HTTP_GET {\n            url {\n                path /\n            }\n"
              + "        }\n    }\n"
        }) {
      Config c =
          Fixtures.parse(VS + "    real_server 127.0.0.2 80 {\n    }\n" + block + "}\n").config();
      String dump = KeepalivedConfig.dump(c);
      assertThat(dump).contains("real_server_dns ");
      DumpRoundTripTest.assertRoundTrip(c);
    }
  }

  static Stream<Arguments> bad() {
    return Stream.of(
        Arguments.of("real_server_dns not..a.name {\n type A\n }\n", 3, "is not a DNS name"),
        Arguments.of("real_server_dns 10.0.0.1 {\n type A\n }\n", 3, "is not a DNS name"),
        Arguments.of("real_server_dns -bad.example {\n type A\n }\n", 3, "is not a DNS name"),
        Arguments.of("real_server_dns x.example {\n }\n", 3, "needs 'type SRV'"),
        Arguments.of("real_server_dns x.example {\n type MX\n }\n", 4, "is not SRV, A or AAAA"),
        Arguments.of(
            "real_server_dns _x._tcp.example {\n type SRV\n port 80\n }\n",
            5,
            "'port' is for type A or AAAA"),
        Arguments.of(
            "real_server_dns x.example {\n type A\n weight srv\n }\n",
            5,
            "'weight srv' needs type SRV"),
        Arguments.of(
            "real_server_dns x.example {\n type A\n nameserver dns.example\n }\n",
            5,
            "is not an IPv4 or IPv6 address"),
        Arguments.of(
            "real_server_dns x.example {\n type A\n max_servers 0\n }\n", 5, "max_servers"),
        Arguments.of(
            "real_server_dns x.example {\n type AAAA\n }\n",
            3,
            "is inet6 but the virtual_server is inet"),
        Arguments.of(
            "real_server_dns x.example {\n type A\n }\nreal_server_dns X.example {\n type A\n }\n",
            6,
            "a second real_server_dns"),
        Arguments.of(
            "real_server_dns x.example {\n type A\n wieght 2\n }\n", 5, "unknown keyword"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("bad")
  void badInputIsOneLineNamingFileAndLine(String block, int line, String message) {
    ConfigException e =
        catchThrowableOfType(ConfigException.class, () -> Fixtures.parse(VS + block + "}\n"));
    assertThat(e).isNotNull();
    assertThat(e.errors()).hasSize(1);
    assertThat(e.errors().get(0).line()).isEqualTo(line);
    assertThat(e.errors().get(0).format()).startsWith("test.conf:" + line + ":").contains(message);
    assertThat(e.errors().get(0).format()).doesNotContain("\n");
  }
}
