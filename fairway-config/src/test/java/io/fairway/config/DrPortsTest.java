package io.fairway.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.config.model.RealServer;
import io.fairway.config.model.TcpCheck;
import org.junit.jupiter.api.Test;

/**
 * keepalived's two ports of a DR/TUN real server: IPVS gets the service's port (or none for a
 * fwmark or group service), the checkers the port written on the real_server. keepalived copies the
 * address into each checker while parsing, before check_data.c forces the port.
 */
class DrPortsTest {

  @Test
  void drRealServerWithAnotherPortIsCheckedOnItsOwnPort() {
    ParseResult r =
        Fixtures.parse(
            String.join(
                "\n",
                "virtual_server 10.9.0.1 80 {",
                "  lb_kind DR",
                "  real_server 127.0.0.2 8080 {",
                "    TCP_CHECK {",
                "      connect_timeout 1",
                "    }",
                "  }",
                "}",
                ""));
    RealServer rs = r.config().virtualServers().get(0).realServers().get(0);
    assertThat(rs.id().port()).as("IPVS port").isEqualTo(80);
    assertThat(rs.checkPort()).isEqualTo(8080);
    assertThat(((TcpCheck) rs.checkers().get(0)).endpoint().port()).isEqualTo(8080);
    assertThat(r.warnings())
        .anySatisfy(
            w -> assertThat(w.message()).contains("IPVS gets 80 and the checkers check 8080"));
  }

  @Test
  void drRealServerWithoutPortIsCheckedOnTheServicePort() {
    ParseResult r =
        Fixtures.parse(
            String.join(
                "\n",
                "virtual_server 10.9.0.1 80 {",
                "  lb_kind DR",
                "  real_server 127.0.0.2 {",
                "    TCP_CHECK {",
                "    }",
                "  }",
                "}",
                ""));
    RealServer rs = r.config().virtualServers().get(0).realServers().get(0);
    assertThat(rs.id().port()).isEqualTo(80);
    assertThat(rs.checkPort()).isEqualTo(80);
    assertThat(((TcpCheck) rs.checkers().get(0)).endpoint().port()).isEqualTo(80);
  }

  @Test
  void drGroupWithMixedPortsLoadsAndChecksTheWrittenPort() {
    ParseResult r =
        Fixtures.parse(
            String.join(
                "\n",
                "virtual_server_group web {",
                "  10.9.0.1 80",
                "  10.9.0.10-12 8080",
                "}",
                "virtual_server group web {",
                "  lb_kind DR",
                "  real_server 127.0.0.2 8080 {",
                "    TCP_CHECK {",
                "    }",
                "  }",
                "}",
                ""));
    RealServer rs = r.config().virtualServers().get(0).realServers().get(0);
    assertThat(rs.id().port()).as("no port of its own in IPVS: each service's").isZero();
    assertThat(rs.checkPort()).isEqualTo(8080);
    assertThat(((TcpCheck) rs.checkers().get(0)).endpoint().port()).isEqualTo(8080);
  }

  @Test
  void natRealServerIsCheckedWhereItIsForwarded() {
    ParseResult r =
        Fixtures.parse(
            String.join(
                "\n",
                "virtual_server 10.9.0.1 80 {",
                "  lb_kind NAT",
                "  real_server 127.0.0.2 8080 {",
                "    TCP_CHECK {",
                "    }",
                "  }",
                "}",
                ""));
    RealServer rs = r.config().virtualServers().get(0).realServers().get(0);
    assertThat(rs.id().port()).isEqualTo(8080);
    assertThat(rs.checkPort()).isEqualTo(8080);
  }
}
