package io.fairway.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.fairway.config.model.Endpoint;
import io.fairway.config.model.UdpCheck;
import java.net.InetAddress;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * bindto / bind_port / bind_if / fwmark: parsed into the checker's endpoint, refused with
 * file:line.
 */
class CheckerSourceTest {
  static String conf(String rs, String check) {
    return "virtual_server "
        + (rs.contains(":") ? "fd00::1" : "127.0.0.1")
        + " 53 {\n"
        + "    protocol UDP\n"
        + "    real_server "
        + rs
        + " 53 {\n"
        + "        UDP_CHECK {\n"
        + "            "
        + check.replace("\n", "\n            ")
        + "\n"
        + "        }\n"
        + "    }\n"
        + "}\n";
  }

  @Test
  void sourceKeywordsLandInTheEndpoint() throws Exception {
    ParseResult r =
        Fixtures.parse(conf("127.0.0.1", "bindto 127.0.0.2\nbind_port 4000\nbind_if lo\nfwmark 7"));
    UdpCheck c =
        (UdpCheck) r.config().virtualServers().get(0).realServers().get(0).checkers().get(0);
    assertThat(c.endpoint())
        .isEqualTo(
            new Endpoint(
                InetAddress.getByName("127.0.0.1"),
                53,
                Optional.of(InetAddress.getByName("127.0.0.2")),
                4000,
                Optional.of("lo"),
                7));
    assertThat(r.warnings()).isEmpty();
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "bindto of the other family | 127.0.0.1 | connect_port 53\\nbindto ::1 | 6 |"
            + " bindto ::1 is not of the address family of the check's target 127.0.0.1",
        "bindto v4 for a v6 connect_ip | 127.0.0.1 | connect_ip ::1\\nbindto 127.0.0.2 | 6 |"
            + " bindto 127.0.0.2 is not of the address family of the check's target ::1",
        "bind_port zero | 127.0.0.1 | bind_port 0 | 5 | bind_port 0 is out of range 1..65535",
        "bind_port too big | 127.0.0.1 | bind_port 70000 | 5 | bind_port 70000 is out of range 1..65535",
        "fwmark too big | 127.0.0.1 | fwmark 4294967296 | 5 | fwmark 4294967296 is out of range",
        "bind_if too long | 127.0.0.1 | bind_if abcdefghijklmnop | 5 |"
            + " bind_if 'abcdefghijklmnop' is not an interface name",
        "link-local without bind_if | fe80::1 | retry 1 | 4 | link-local target fe80::1 needs bind_if",
      })
  void badSourcesAreErrorsWithFileAndLine(
      String name, String rs, String check, int line, String message) {
    ConfigException e =
        catchThrowableOfType(
            ConfigException.class, () -> Fixtures.parse(conf(rs, check.replace("\\n", "\n"))));
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
  void aMissingInterfaceIsAWarningBecauseItMayComeUpLater() {
    ParseResult r = Fixtures.parse(conf("127.0.0.1", "bind_if fwnosuch0"));
    assertThat(r.warnings())
        .extracting(Diagnostic::format)
        .anyMatch(m -> m.startsWith("test.conf:5: warning: bind_if fwnosuch0: no such interface"));
  }

  @Test
  void linkLocalWithBindIfLoads() {
    ParseResult r = Fixtures.parse(conf("fe80::1", "bind_if lo"));
    assertThat(r.config().virtualServers()).hasSize(1);
  }
}
