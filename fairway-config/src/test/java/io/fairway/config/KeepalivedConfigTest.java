package io.fairway.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.config.model.BfdCheck;
import io.fairway.config.model.Config;
import io.fairway.config.model.DirectorSpec;
import io.fairway.config.model.DnsCheck;
import io.fairway.config.model.FileCheck;
import io.fairway.config.model.Forwarding;
import io.fairway.config.model.GlobalDefs;
import io.fairway.config.model.GroupEntry;
import io.fairway.config.model.HttpCheck;
import io.fairway.config.model.KeySource;
import io.fairway.config.model.LbKind;
import io.fairway.config.model.MiscCheck;
import io.fairway.config.model.PingCheck;
import io.fairway.config.model.RealServer;
import io.fairway.config.model.RealServerId;
import io.fairway.config.model.Scheduler;
import io.fairway.config.model.SchedulerFlag;
import io.fairway.config.model.SmtpCheck;
import io.fairway.config.model.StatusRange;
import io.fairway.config.model.TcpCheck;
import io.fairway.config.model.UdpCheck;
import io.fairway.config.model.VirtualServer;
import io.fairway.config.model.VirtualServerId;
import io.fairway.table.AddressFamily;
import io.fairway.table.Protocol;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class KeepalivedConfigTest {

  static InetAddress ip(String s) throws Exception {
    return InetAddress.getByName(s);
  }

  @Test
  void fullFixtureResolvesDefaultsInheritanceAndAdjustments() throws Exception {
    ParseResult r = Fixtures.load("full.conf");
    Config c = r.config();
    assertThat(c.globalDefs().routerId()).contains("LB_TEST");
    assertThat(c.globalDefs().notificationEmails())
        .containsExactly("ops@example.org", "oncall@example.org");
    assertThat(c.globalDefs().smtpConnectTimeout()).isEqualTo(Duration.ofSeconds(20));
    assertThat(c.globalDefs().enableScriptSecurity()).isTrue();
    assertThat(c.trackFiles())
        .singleElement()
        .satisfies(
            t -> {
              assertThat(t.weight()).isEqualTo(10);
              assertThat(t.initValue()).contains(0L);
              assertThat(t.overwrite()).isTrue();
            });

    VirtualServer vs = c.virtualServers().get(0);
    assertThat(vs.id()).isEqualTo(new VirtualServerId.Address(ip("127.0.0.1"), Protocol.TCP, 8080));
    assertThat(vs.name()).isEqualTo("127.0.0.1:8080");
    assertThat(vs.scheduling().scheduler()).isEqualTo(Scheduler.WRR);
    assertThat(vs.forwarding()).isEqualTo(Forwarding.of(LbKind.NAT));
    assertThat(vs.persistence().timeout()).isEqualTo(Duration.ofMinutes(2));
    assertThat(vs.persistence().granularity()).contains(24);
    assertThat(vs.omega()).isTrue();
    // weights 3 + 2 + 1 = 6 >= quorum 5: no capping; hysteresis 1 stays.
    assertThat(vs.quorum().quorum()).isEqualTo(5);
    assertThat(vs.quorum().hysteresis()).isEqualTo(1);
    assertThat(vs.quorum().up().orElseThrow().argv())
        .containsExactly("/usr/local/bin/quorum.sh", "up", "web");
    assertThat(vs.sorry().server().orElseThrow().id())
        .isEqualTo(new RealServerId(ip("127.0.0.9"), 8080));
    assertThat(vs.sorry().server().orElseThrow().inhibit()).isTrue();

    RealServer rs1 = vs.realServers().get(0);
    assertThat(rs1.id()).isEqualTo(new RealServerId(ip("127.0.0.2"), 9001));
    assertThat(rs1.weight()).isEqualTo(3.0);
    assertThat(rs1.inhibitOnFailure()).isTrue();
    assertThat(rs1.thresholds().upper()).isEqualTo(1000);
    assertThat(rs1.thresholds().lower()).isEqualTo(800);
    assertThat(rs1.notifyScripts().down().orElseThrow().user()).contains("nobody");

    HttpCheck http = (HttpCheck) rs1.checkers().get(0);
    assertThat(http.ssl()).isFalse();
    assertThat(http.delayLoop()).isEqualTo(Duration.ofSeconds(3)); // from the VS
    assertThat(http.connectTimeout()).isEqualTo(Duration.ofSeconds(2));
    assertThat(http.retry()).isEqualTo(2);
    assertThat(http.delayBeforeRetry()).isEqualTo(Duration.ofMillis(1500));
    assertThat(http.warmup()).isEqualTo(Duration.ofSeconds(3)); // defaults to delay_loop
    assertThat(http.alpha()).isTrue(); // from the VS
    assertThat(http.endpoint().address()).isEqualTo(ip("127.0.0.2"));
    assertThat(http.endpoint().port()).isEqualTo(9001);
    assertThat(http.urls().get(0).digest()).contains("9b3a0c85a887a256d6939da88aabd8cd");
    assertThat(http.urls().get(0).statusCodes())
        .containsExactly(
            new StatusRange(200, 200), new StatusRange(204, 204), new StatusRange(301, 302));
    assertThat(http.urls().get(0).accepts(302)).isTrue();
    assertThat(http.urls().get(0).accepts(200)).isTrue();
    assertThat(http.urls().get(0).accepts(203)).isFalse();
    assertThat(http.urls().get(0).virtualhost()).contains("www.example.org"); // VS virtualhost
    assertThat(http.urls().get(1).virtualhost()).contains("ready.example.org"); // url wins
    assertThat(http.urls().get(1).statusCodes()).containsExactly(StatusRange.DEFAULT);

    TcpCheck tcp = (TcpCheck) rs1.checkers().get(1);
    assertThat(tcp.endpoint().port()).isEqualTo(9002);
    assertThat(tcp.connectTimeout()).isEqualTo(Duration.ofMillis(250));
    assertThat(tcp.retry()).isEqualTo(1);
    assertThat(tcp.delayBeforeRetry()).isEqualTo(Duration.ofSeconds(1));

    RealServer rs2 = vs.realServers().get(1);
    HttpCheck ssl = (HttpCheck) rs2.checkers().get(0);
    assertThat(ssl.ssl()).isTrue();
    assertThat(ssl.httpVersion()).isEqualTo("1.1");
    assertThat(ssl.retry()).isEqualTo(4); // from the RS
    assertThat(ssl.delayBeforeRetry()).isEqualTo(Duration.ofSeconds(3)); // HTTP default
    MiscCheck misc = (MiscCheck) rs2.checkers().get(1);
    assertThat(misc.script().argv())
        .containsExactly("/usr/local/bin/check.sh", "127.0.0.3", "two words");
    assertThat(misc.script().user()).contains("nobody");
    assertThat(misc.script().group()).contains("nogroup");
    assertThat(misc.timeout()).isEqualTo(Duration.ofSeconds(5));
    assertThat(misc.dynamic()).isTrue();
    assertThat(misc.retry()).isEqualTo(4);

    List<?> checks = vs.realServers().get(2).checkers();
    DnsCheck dns = (DnsCheck) checks.get(0);
    assertThat(dns.type()).isEqualTo("A");
    assertThat(dns.retry()).isEqualTo(3); // DNS default
    assertThat(dns.delayBeforeRetry()).isEqualTo(Duration.ofSeconds(3)); // = delay_loop
    SmtpCheck smtp = (SmtpCheck) checks.get(1);
    assertThat(smtp.heloName()).isEqualTo("fairway.test");
    UdpCheck udp = (UdpCheck) checks.get(2);
    assertThat(udp.payload()).isEqualTo("0a0b0c");
    assertThat(udp.requireReply()).contains("0axx");
    assertThat(udp.minReplyLength()).isEqualTo(2);
    assertThat(udp.maxReplyLength()).isEqualTo(255);
    PingCheck ping = (PingCheck) checks.get(3);
    assertThat(ping.delayLoop()).isEqualTo(Duration.ofSeconds(1));
    FileCheck file = (FileCheck) checks.get(4);
    assertThat(file.weight()).isEqualTo(-2);
    assertThat(file.reverse()).isTrue();
    assertThat(file.alpha()).isFalse();
    BfdCheck bfd = (BfdCheck) checks.get(5);
    assertThat(bfd.name()).isEqualTo("bfd_lo");
    assertThat(bfd.alpha()).isTrue();

    assertThat(r.config().vrrp().instance("VI_TEST"))
        .get()
        .satisfies(i -> assertThat(i.priority()).isEqualTo(150))
        .satisfies(i -> assertThat(i.interfaceName()).isEqualTo("lo"));
    assertThat(r.config().vrrp().script("chk_something"))
        .get()
        .satisfies(s -> assertThat(s.interval()).isEqualTo(Duration.ofSeconds(2)));
  }

  @Test
  void ipv6AndDirectRoutingPortRules() throws Exception {
    ParseResult r = Fixtures.load("ipv6.conf");
    VirtualServer vs = r.config().virtualServers().get(0);
    assertThat(vs.id()).isEqualTo(new VirtualServerId.Address(ip("::1"), Protocol.TCP, 8443));
    assertThat(vs.realServers())
        .extracting(RealServer::id)
        .containsExactly(new RealServerId(ip("::1"), 8443), new RealServerId(ip("::2"), 8443));
    assertThat(r.warnings()).extracting(Diagnostic::line).contains(12);
    VirtualServer udp = r.config().virtualServers().get(1);
    assertThat(udp.scheduling().flags())
        .containsExactlyInAnyOrder(
            SchedulerFlag.SH_PORT, SchedulerFlag.SH_FALLBACK, SchedulerFlag.OPS);
    assertThat(udp.scheduling().flagBits()).isEqualTo(0x8 | 0x10 | 0x4);
    assertThat(udp.realServers().get(0).id().port()).isEqualTo(53); // NAT: takes the VS port
  }

  @Test
  void fwmarkAndGroups() throws Exception {
    Config c = Fixtures.load("fwmark.conf").config();
    assertThat(c.groups())
        .singleElement()
        .satisfies(
            g -> {
              assertThat(g.entries()).hasSize(6);
              GroupEntry.AddressRange range = (GroupEntry.AddressRange) g.entries().get(1);
              assertThat(range.addresses())
                  .containsExactly(ip("127.0.1.10"), ip("127.0.1.11"), ip("127.0.1.12"));
              GroupEntry.AddressRange prefix = (GroupEntry.AddressRange) g.entries().get(2);
              assertThat(prefix.size()).isEqualTo(4);
              assertThat(prefix.port()).isEqualTo(443);
              GroupEntry.AddressRange v6 = (GroupEntry.AddressRange) g.entries().get(3);
              assertThat(v6.last()).isEqualTo(ip("fd00::3"));
              assertThat(g.entries().get(5))
                  .isEqualTo(new GroupEntry.Fwmark(8, AddressFamily.INET6));
            });
    VirtualServer fw = c.virtualServers().get(0);
    assertThat(fw.id()).isEqualTo(new VirtualServerId.Fwmark(42, AddressFamily.INET));
    assertThat(fw.name()).isEqualTo("fwmark:42");
    assertThat(fw.persistence().timeout()).isEqualTo(Duration.ofMinutes(6)); // bare keyword
    assertThat(fw.realServers()).extracting(rs -> rs.id().port()).containsOnly(0);
    assertThat(fw.quorum().quorum()).isEqualTo(1);
    VirtualServer group = c.virtualServers().get(1);
    assertThat(group.id()).isEqualTo(new VirtualServerId.Group("WEB", Protocol.TCP));
    assertThat(group.forwarding())
        .isEqualTo(
            new Forwarding(
                LbKind.TUN, Forwarding.TunnelType.GUE, 6080, Forwarding.TunnelChecksum.CSUM));
  }

  @Test
  void overflowAndSlowStartExtensions() throws Exception {
    Config c =
        Fixtures.parse(
                "virtual_server 10.0.0.1 80 {\n  protocol TCP\n"
                    + "  sorry_server 10.0.0.9 80\n  overflow_to_sorry_server\n  slow_start 30\n"
                    + "  real_server 10.0.0.2 80 {\n  }\n"
                    + "  real_server 10.0.0.3 80 {\n    slow_start 2.5\n  }\n"
                    + "  real_server 10.0.0.4 80 {\n    slow_start 0\n  }\n}\n"
                    + "virtual_server 10.0.0.1 81 {\n  protocol TCP\n  sorry_server 10.0.0.9 81\n"
                    + "  real_server 10.0.0.2 81 {\n  }\n}\n")
            .config();
    VirtualServer vs = c.virtualServers().get(0);
    assertThat(vs.sorry().overflow()).isTrue();
    assertThat(vs.slowStart()).isEqualTo(Duration.ofSeconds(30));
    assertThat(vs.realServers())
        .extracting(RealServer::slowStart)
        .containsExactly(Duration.ofSeconds(30), Duration.ofMillis(2500), Duration.ZERO);
    VirtualServer plain = c.virtualServers().get(1);
    assertThat(plain.sorry().overflow()).isFalse();
    assertThat(plain.slowStart()).isZero();
    assertThat(plain.realServers().get(0).slowStart()).isZero();

    String dump = KeepalivedConfig.dump(c);
    assertThat(dump)
        .contains("overflow_to_sorry_server")
        .contains("slow_start 30")
        .contains("slow_start 2.5");
    assertThat(Fixtures.parse(dump).config()).isEqualTo(c);
    // Not used, not written: keepalived must still read the dump of a plain file.
    assertThat(
            KeepalivedConfig.dump(
                Fixtures.parse(
                        "virtual_server 10.0.0.1 81 {\n"
                            + "  protocol TCP\n  sorry_server 10.0.0.9 81\n  real_server 10.0.0.2 81 {\n  }\n}\n")
                    .config()))
        .doesNotContain("overflow")
        .doesNotContain("slow_start");
  }

  @Test
  void directorExtensions() throws Exception {
    Config c = Fixtures.load("director.conf").config();
    VirtualServer web = c.virtualServer("web").orElseThrow();
    assertThat(web.scheduling().scheduler()).isEqualTo(Scheduler.SHARD);
    assertThat(web.forwarding().method()).isEqualTo(LbKind.HTTP);
    assertThat(web.scheduling().hashBalanceFactor()).isEqualTo(150);
    assertThat(web.scheduling().director())
        .isEqualTo(
            new DirectorSpec.Shard(
                100,
                new KeySource(KeySource.Kind.HEADER, Optional.of("X-User")),
                DirectorSpec.Healthy.ALL,
                0.5,
                Duration.ofSeconds(30)));
    assertThat(web.realServers())
        .extracting(RealServer::name, RealServer::ident, RealServer::weight)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("b1", "node-1", 1.5),
            org.assertj.core.groups.Tuple.tuple("b2", "b2", 0.5));
    // quorum is capped to the (integer part of the) weight sum, 1 + 0 = 1
    assertThat(web.quorum().quorum()).isEqualTo(1);

    VirtualServer fb = c.virtualServers().get(1);
    assertThat(fb.scheduling().director()).isEqualTo(new DirectorSpec.Fallback(true));
    assertThat(fb.forwarding().method()).isEqualTo(LbKind.PROXY); // default for Varnish
    assertThat(fb.id()).isEqualTo(new VirtualServerId.Address(ip("127.0.0.1"), Protocol.TCP, 8081));

    VirtualServer api = c.virtualServer("api").orElseThrow();
    assertThat(api.scheduling().director())
        .isEqualTo(
            new DirectorSpec.Hash(new KeySource(KeySource.Kind.COOKIE, Optional.of("session"))));

    VirtualServer proxy = c.virtualServers().get(3);
    assertThat(proxy.scheduling().scheduler()).isEqualTo(Scheduler.WLC);
    assertThat(proxy.scheduling().director()).isEqualTo(new DirectorSpec.None());
    assertThat(proxy.realServers().get(0).thresholds().upper()).isEqualTo(100);
  }

  @Test
  void includesAreRelativeToTheIncludingFileAndSorted() {
    ParseResult r = Fixtures.load("include/main.conf");
    assertThat(r.config().globalDefs().routerId()).contains("INCLUDED");
    assertThat(r.config().virtualServers())
        .extracting(VirtualServer::name)
        .containsExactly("127.0.0.1:80", "127.0.0.1:81", "127.0.0.1:82");
    assertThat(r.config().virtualServers().get(1).location().file()).endsWith("20-api.conf");
    assertThat(r.config().virtualServers().get(1).location().line()).isEqualTo(1);
  }

  @Test
  void macrosRepeatersAndConditionals() throws Exception {
    ParseResult r = Fixtures.load("macros.conf");
    Config c = r.config();
    assertThat(c.globalDefs().routerId()).contains("on-testhost");
    VirtualServer vs = c.virtualServers().get(0);
    assertThat(vs.id()).isEqualTo(new VirtualServerId.Address(ip("127.0.0.1"), Protocol.TCP, 8081));
    assertThat(vs.realServers())
        .extracting(rs -> rs.id().toString())
        .containsExactly(
            "127.0.0.11:8081",
            "127.0.0.12:8081",
            "127.0.0.13:8081",
            "127.0.0.21:9000",
            "127.0.0.22:9000",
            "127.0.0.30:9000");
    assertThat(vs.realServers())
        .extracting(RealServer::weight)
        .containsExactly(1.0, 2.0, 3.0, 4.0, 5.0, 1.0);
    assertThat(vs.realServers().get(5).checkers())
        .singleElement()
        .isInstanceOfSatisfying(
            TcpCheck.class, t -> assertThat(t.connectTimeout()).isEqualTo(Duration.ofSeconds(2)));

    ParseResult other =
        KeepalivedConfig.parse(
            Fixtures.path("macros.conf"), Fixtures.OPTIONS.withConfigId("otherhost"));
    assertThat(other.config().globalDefs().routerId()).contains("elsewhere");
    assertThat(other.config().virtualServers().get(0).realServers()).hasSize(7);
  }

  @Test
  void reloadDiffSeesOnlyRealChanges() {
    Config a = Fixtures.load("full.conf").config();
    Config moved = Fixtures.parse("\n\n# comment\n" + read("full.conf")).config();
    assertThat(moved).isEqualTo(a);
    assertThat(moved.hashCode()).isEqualTo(a.hashCode());
    Config changed = Fixtures.parse(read("full.conf").replace("weight 2", "weight 7")).config();
    assertThat(changed).isNotEqualTo(a);
    VirtualServer vsA = a.virtualServers().get(0);
    VirtualServer vsB = changed.virtualServers().get(0);
    assertThat(vsB.id()).isEqualTo(vsA.id());
    assertThat(vsB.realServers().get(1).id()).isEqualTo(vsA.realServers().get(1).id());
    assertThat(vsB.realServers().get(1)).isNotEqualTo(vsA.realServers().get(1));
  }

  @Test
  void globalTimeoutsSslAndDroppedServices() {
    ParseResult r =
        Fixtures.parse(
            """
        global_defs {
            lvs_timeouts tcp 900 tcpfin 120 udp 300
            lvs_flush
            checker_log_all_failures
        }
        SSL {
            ca /etc/ssl/ca.pem
            certificate /etc/ssl/client.pem
        }
        virtual_server 127.0.0.1 443 {
            protocol TCP
            real_server 127.0.0.2 443 {
                SSL_GET {
                }
                TCP_CHECK {
                }
            }
            real_server 127.0.0.2 443 {
                weight 9
            }
        }
        virtual_server 127.0.0.1 444 {
            protocol TCP
        }
        """);
    Config c = r.config();
    assertThat(c.globalDefs().lvsTimeoutTcp()).contains(Duration.ofMinutes(15));
    assertThat(c.globalDefs().lvsTimeoutTcpFin()).contains(Duration.ofMinutes(2));
    assertThat(c.globalDefs().lvsTimeoutUdp()).contains(Duration.ofMinutes(5));
    assertThat(c.globalDefs().lvsFlush()).isTrue();
    assertThat(c.globalDefs().lvsFlushOnStop()).isEqualTo(GlobalDefs.FlushOnStop.NONE);
    assertThat(c.ssl().orElseThrow().ca()).contains("/etc/ssl/ca.pem");
    assertThat(c.ssl().orElseThrow().key()).isEmpty();
    assertThat(c.virtualServers())
        .singleElement()
        .satisfies(
            vs -> {
              assertThat(vs.realServers())
                  .singleElement()
                  .satisfies(
                      rs -> {
                        assertThat(rs.weight())
                            .isEqualTo(1.0); // the duplicate (weight 9) was dropped
                        assertThat(rs.checkers())
                            .singleElement()
                            .isInstanceOfSatisfying(
                                TcpCheck.class,
                                t ->
                                    assertThat(t.timing().logAllFailures())
                                        .isTrue()); // SSL_GET without url dropped
                      });
            });
    assertThat(r.warnings())
        .extracting(Diagnostic::message)
        .anyMatch(m -> m.contains("SSL_GET has no url"))
        .anyMatch(m -> m.contains("duplicate real_server 127.0.0.2:443"))
        .anyMatch(m -> m.contains("has no real_server - ignored"));
  }

  @Test
  void maxConnsExtensionIsInheritedOverriddenAndWrittenBack() throws Exception {
    ParseResult r =
        Fixtures.parse(
            "virtual_server 10.0.0.1 80 {\n  protocol TCP\n  lb_kind PROXY\n  max_conns 100\n"
                + "  real_server 10.0.0.2 80 {\n  }\n"
                + "  real_server 10.0.0.3 80 {\n    max_conns 10\n  }\n"
                + "  real_server 10.0.0.4 80 {\n    max_conns 0\n  }\n}\n"
                + "virtual_server 10.0.0.1 81 {\n  protocol TCP\n  lb_kind PROXY\n"
                + "  real_server 10.0.0.2 81 {\n  }\n}\n");
    Config c = r.config();
    assertThat(c.virtualServers().get(0).realServers())
        .extracting(rs -> rs.backend().maxConns())
        .containsExactly(100, 10, 0);
    assertThat(c.virtualServers().get(1).realServers().get(0).backend().maxConns()).isZero();
    assertThat(r.warnings()).isEmpty(); // the userspace plane honours it: nothing to warn of
    String dump = KeepalivedConfig.dump(c);
    assertThat(dump).contains("max_conns 100").contains("max_conns 10");
    assertThat(Fixtures.parse(dump).config()).isEqualTo(c);
  }

  @Test
  void maxConnsWhereNothingHonoursItIsAWarningAtItsLine() throws Exception {
    ParseResult kernel =
        Fixtures.parse(
            "virtual_server 10.0.0.1 80 {\n  protocol TCP\n  lb_kind NAT\n"
                + "  real_server 10.0.0.2 80 {\n    max_conns 10\n  }\n}\n");
    assertThat(kernel.warnings())
        .singleElement()
        .satisfies(
            d -> {
              assertThat(d.line()).isEqualTo(5);
              assertThat(d.message()).contains("max_conns is honoured by the userspace data plane");
            });
    assertThat(kernel.config().virtualServers().get(0).realServers().get(0).backend().maxConns())
        .isEqualTo(10); // kept for --userspace, which runs a NAT file on the proxy
    ParseResult udp =
        Fixtures.parse(
            "virtual_server 10.0.0.1 53 {\n  protocol UDP\n  lb_kind NAT\n  max_conns 5\n"
                + "  real_server 10.0.0.2 53 {\n  }\n}\n");
    assertThat(udp.warnings())
        .singleElement()
        .satisfies(
            d -> {
              assertThat(d.line()).isEqualTo(4);
              assertThat(d.message()).contains("UDP service's flows are not limited");
            });
  }

  static String read(String fixture) {
    try {
      return java.nio.file.Files.readString(Fixtures.path(fixture));
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
