package io.fairway.check.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fairway.check.CheckConfigException;
import io.fairway.check.spec.CheckSource;
import io.fairway.check.spec.CheckSpec;
import io.fairway.check.spec.DnsCheckSpec;
import io.fairway.check.spec.FileCheckSpec;
import io.fairway.check.spec.HttpCheckSpec;
import io.fairway.check.spec.MiscCheckSpec;
import io.fairway.check.spec.RealServerSpec;
import io.fairway.check.spec.TcpCheckSpec;
import io.fairway.check.spec.VirtualServerSpec;
import io.fairway.config.KeepalivedConfig;
import io.fairway.config.ParseOptions;
import io.fairway.config.model.Config;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * keepalived.conf → engine specs, on fixtures written at test time (scripts must be real files).
 */
class CheckSpecsTest {
  @TempDir Path dir;

  Config parse(String text) throws Exception {
    Path script = dir.resolve("check.sh");
    Files.writeString(script, "#!/bin/sh\nexit 0\n");
    Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
    Files.writeString(dir.resolve("maint"), "0\n");
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
    String conf = text.replace("@DIR@", dir.toString());
    return KeepalivedConfig.parse("test.conf", conf, dir, ParseOptions.defaults()).config();
  }

  @Test
  void convertsVirtualServersRealServersAndCheckers() throws Exception {
    String text =
        new String(
            getClass().getResourceAsStream("/checks.conf").readAllBytes(), StandardCharsets.UTF_8);
    List<VirtualServerSpec> specs = CheckSpecs.from(parse(text));
    assertThat(specs).hasSize(1);
    VirtualServerSpec vs = specs.get(0);
    assertThat(vs.quorum()).isEqualTo(2);
    assertThat(vs.hysteresis()).isEqualTo(1);
    assertThat(vs.hasSorryServer()).isTrue();
    assertThat(Objects.requireNonNull(vs.quorumUp(), "quorum_up is configured").argv())
        .containsExactly(dir.resolve("check.sh").toString(), "up");
    assertThat(vs.realServers())
        .extracting(RealServerSpec::name)
        .containsExactly("127.0.0.1:8080", "127.0.0.2:8080");
    RealServerSpec web1 = vs.realServers().get(0);
    assertThat(web1.weight()).isEqualTo(3);
    assertThat(web1.checkers()).hasSize(4);
    TcpCheckSpec tcp = (TcpCheckSpec) web1.checkers().get(0);
    assertThat(tcp.target().getPort()).isEqualTo(8080);
    assertThat(tcp.timing().delayLoop()).isEqualTo(Duration.ofSeconds(2));
    assertThat(tcp.timing().connectTimeout()).isEqualTo(Duration.ofSeconds(3));
    assertThat(tcp.timing().retry()).isEqualTo(1);
    HttpCheckSpec http = (HttpCheckSpec) web1.checkers().get(1);
    assertThat(http.urls())
        .singleElement()
        .satisfies(
            u -> {
              assertThat(u.path()).isEqualTo("/health");
              assertThat(u.accepts(204)).isTrue();
              assertThat(u.accepts(200)).isFalse();
              assertThat(u.virtualHost()).isEqualTo("www.example.test");
            });
    MiscCheckSpec misc = (MiscCheckSpec) web1.checkers().get(2);
    assertThat(misc.dynamic()).isTrue();
    assertThat(misc.timeout()).isEqualTo(Duration.ofSeconds(4));
    assertThat(misc.timing().retry()).isZero(); // keepalived's MISC_CHECK default
    FileCheckSpec file = (FileCheckSpec) web1.checkers().get(3);
    assertThat(file.weight()).isEqualTo(10);
    assertThat(file.file()).isEqualTo(dir.resolve("maint"));
    DnsCheckSpec dns = (DnsCheckSpec) vs.realServers().get(1).checkers().get(0);
    assertThat(dns.timing().retry()).isEqualTo(3); // keepalived's DNS_CHECK default
    assertThat(dns.timing().alpha()).isTrue();
    assertThat(dns.type()).isEqualTo("A");
  }

  @Test
  void missingScriptIsAnErrorWithFileAndLine() throws Exception {
    Config c =
        parse(
            """
                virtual_server 127.0.0.1 80 {
                  protocol TCP
                  real_server 127.0.0.1 8080 {
                    MISC_CHECK {
                      misc_path "/nonexistent/check.sh"
                    }
                  }
                }
                """);
    assertThatThrownBy(() -> CheckSpecs.from(c))
        .isInstanceOf(CheckConfigException.class)
        .hasMessage("test.conf:4: MISC_CHECK: script /nonexistent/check.sh does not exist");
  }

  @Test
  void httpProtocolSetsVersionAndConnectionClose() throws Exception {
    for (String[] c :
        new String[][] {
          {"1.0", "false", "false"}, {"1.0C", "false", "true"}, {"1.1", "true", "true"}
        }) {
      Config conf =
          parse(
              """
                    virtual_server 127.0.0.1 80 {
                      protocol TCP
                      real_server 127.0.0.1 8080 {
                        HTTP_GET {
                          http_protocol %s
                          url {
                            path /
                          }
                        }
                      }
                    }
                    """
                  .formatted(c[0]));
      HttpCheckSpec http =
          (HttpCheckSpec) CheckSpecs.from(conf).get(0).realServers().get(0).checkers().get(0);
      assertThat(http.http11()).as(c[0]).isEqualTo(Boolean.parseBoolean(c[1]));
      assertThat(http.connectionClose()).as(c[0]).isEqualTo(Boolean.parseBoolean(c[2]));
    }
  }

  @Test
  void tcpTakesItsSourceFromTheConfig() throws Exception {
    Config c =
        parse(
            """
                virtual_server 127.0.0.1 80 {
                  protocol TCP
                  real_server 127.0.0.1 8080 {
                    TCP_CHECK {
                      bindto 127.0.0.5
                      bind_if lo
                    }
                  }
                }
                """);
    TcpCheckSpec tcp =
        (TcpCheckSpec) CheckSpecs.from(c).get(0).realServers().get(0).checkers().get(0);
    assertThat(tcp.describe()).isEqualTo("TCP_CHECK 127.0.0.1:8080 from 127.0.0.5 dev lo");
  }

  @Test
  void sourceReachesTheSpecsOfTheChecksThatHonourIt() throws Exception {
    Config c =
        parse(
            """
                virtual_server 127.0.0.1 53 {
                  protocol UDP
                  real_server 127.0.0.1 53 {
                    DNS_CHECK {
                      bindto 127.0.0.2
                      bind_port 5353
                    }
                    UDP_CHECK {
                      bind_if lo
                      fwmark 7
                    }
                    SMTP_CHECK {
                      connect_port 25
                      bindto 127.0.0.3
                    }
                    PING_CHECK {
                      bindto 127.0.0.4
                    }
                  }
                }
                """);
    List<CheckSpec> checks = CheckSpecs.from(c).get(0).realServers().get(0).checkers();
    assertThat(checks)
        .extracting(CheckSpec::describe)
        .containsExactly(
            "DNS_CHECK 127.0.0.1:53 from 127.0.0.2:5353 SOA .",
            "UDP_CHECK 127.0.0.1:53 dev lo fwmark 7",
            "SMTP_CHECK 127.0.0.1:25 from 127.0.0.3",
            "PING_CHECK 127.0.0.1 from 127.0.0.4");
    DnsCheckSpec dns = (DnsCheckSpec) checks.get(0);
    assertThat(dns.source())
        .isEqualTo(new CheckSource(InetAddress.getByName("127.0.0.2"), 5353, null, 0));
    // a reload's withTiming keeps the source, so a kept checker still leaves from it
    assertThat(checks).allSatisfy(k -> assertThat(k.withTiming(k.timing())).isEqualTo(k));
  }

  @Test
  void httpTakesItsSourceFromTheConfig() throws Exception {
    Config c =
        parse(
            """
                virtual_server 127.0.0.1 80 {
                  protocol TCP
                  real_server 127.0.0.1 8080 {
                    HTTP_GET {
                      bindto 127.0.0.2
                      bind_port 4100
                      fwmark 3
                      url {
                        path /
                      }
                    }
                  }
                }
                """);
    HttpCheckSpec http =
        (HttpCheckSpec) CheckSpecs.from(c).get(0).realServers().get(0).checkers().get(0);
    assertThat(http.source().describe()).isEqualTo(" from 127.0.0.2:4100 fwmark 3");
    assertThat(http.withTiming(http.timing())).isEqualTo(http);
  }

  @Test
  void urlRegexRiseFallAndVerifyCertReachTheSpec() throws Exception {
    Files.writeString(dir.resolve("ca.pem"), "not read until the checker starts\n");
    Config c =
        parse(
            """
                SSL {
                  ca @DIR@/global-ca.pem
                }
                virtual_server 127.0.0.1 80 {
                  protocol TCP
                  rise 3
                  real_server 127.0.0.1 8080 {
                    SSL_GET {
                      fall 2
                      verify_cert
                      ca_file @DIR@/ca.pem
                      url {
                        path /
                        regex "ok|fine"
                        regex_options caseless firstline
                        regex_min_offset 2
                        regex_max_offset 9
                        regex_no_match
                      }
                    }
                  }
                }
                """);
    HttpCheckSpec http =
        (HttpCheckSpec) CheckSpecs.from(c).get(0).realServers().get(0).checkers().get(0);
    assertThat(http.timing().rise()).isEqualTo(3);
    assertThat(http.timing().retry()).isEqualTo(1);
    assertThat(http.verifyCertificate()).isTrue();
    assertThat(http.caFile()).isEqualTo(dir.resolve("ca.pem"));
    var r = http.urls().get(0).regex();
    assertThat(Objects.requireNonNull(r, "the url has a regex").pattern()).isEqualTo("ok|fine");
    assertThat(r.flags()).isEqualTo(java.util.regex.Pattern.CASE_INSENSITIVE);
    assertThat(r.firstLine()).isTrue();
    assertThat(r.utf()).isFalse();
    assertThat(r.noMatch()).isTrue();
    assertThat(r.minOffset()).isEqualTo(2);
    assertThat(r.maxOffset()).isEqualTo(9);
  }

  @Test
  void verifyCertWithAnUnreadableCaIsALoadErrorAndTheGlobalCaIsTheFallback() throws Exception {
    String text =
        """
                SSL {
                  ca @DIR@/missing-ca.pem
                }
                virtual_server 127.0.0.1 80 {
                  protocol TCP
                  real_server 127.0.0.1 8080 {
                    SSL_GET {
                      verify_cert
                      url {
                        path /
                      }
                    }
                  }
                }
                """;
    assertThatThrownBy(() -> CheckSpecs.from(parse(text)))
        .isInstanceOf(CheckConfigException.class)
        .hasMessage(
            "test.conf:7: SSL_GET: cannot read CA file "
                + dir.resolve("missing-ca.pem")
                + " for verify_cert");
    Files.writeString(dir.resolve("missing-ca.pem"), "x\n");
    HttpCheckSpec http =
        (HttpCheckSpec) CheckSpecs.from(parse(text)).get(0).realServers().get(0).checkers().get(0);
    assertThat(http.caFile()).isEqualTo(dir.resolve("missing-ca.pem"));
    // keepalived never verifies: without verify_cert the CA is not required to exist.
    HttpCheckSpec off =
        (HttpCheckSpec)
            CheckSpecs.from(
                    parse(text.replace("verify_cert", "").replace("missing-ca", "absent-ca")))
                .get(0)
                .realServers()
                .get(0)
                .checkers()
                .get(0);
    assertThat(off.verifyCertificate()).isFalse();
  }
}
