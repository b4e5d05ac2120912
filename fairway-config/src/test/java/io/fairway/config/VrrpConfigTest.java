package io.fairway.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.fairway.config.model.vrrp.SyncGroup;
import io.fairway.config.model.vrrp.Track;
import io.fairway.config.model.vrrp.VirtualAddress;
import io.fairway.config.model.vrrp.VrrpConfig;
import io.fairway.config.model.vrrp.VrrpInstance;
import io.fairway.config.model.vrrp.VrrpScript;
import io.fairway.config.model.vrrp.VrrpState;
import io.fairway.table.AddressFamily;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** vrrp_instance, vrrp_sync_group, vrrp_script and the VRRP global_defs as keepalived 2.2. */
class VrrpConfigTest {
  static final Path SAMPLES = Path.of("/work/shared/reference/keepalived-samples");

  static VrrpConfig vrrp(String text) {
    return Fixtures.parse(text).config().vrrp();
  }

  static String instance(String body) {
    return "vrrp_instance VI_1 {\n interface eth0\n virtual_router_id 51\n" + body + "}\n";
  }

  @Test
  void everyKeywordOfTheIssueIsRead() {
    VrrpConfig c =
        vrrp(
            "global_defs {\n router_id lb1\n vrrp_version 3\n"
                + " vrrp_garp_master_delay 2\n vrrp_garp_master_repeat 3\n vrrp_garp_master_refresh 60\n"
                + " vrrp_garp_interval 0.01\n vrrp_skip_check_adv_addr\n}\n"
                + "vrrp_script chk {\n script \"/usr/bin/pgrep -x nginx\"\n interval 2\n timeout 1\n"
                + " weight -20\n rise 2\n fall 3\n user nobody nogroup\n}\n"
                + "vrrp_instance VI_1 {\n state BACKUP\n interface eth0\n virtual_router_id 51\n"
                + " priority 90\n advert_int 0.5\n virtual_ipaddress {\n  10.1.0.10/24 dev eth1 label eth1:vip\n"
                + "  10.1.0.11\n }\n virtual_ipaddress_excluded {\n  10.2.0.1/16 scope link\n }\n"
                + " preempt_delay 5\n unicast_src_ip 10.1.0.2\n unicast_peer {\n  10.1.0.3\n  10.1.0.4\n }\n"
                + " garp_master_delay 1\n garp_master_repeat 2\n garp_master_refresh 10\n"
                + " notify_master \"/bin/echo master\"\n notify_backup /bin/backup.sh\n"
                + " notify_fault /bin/fault.sh\n notify_stop /bin/stop.sh\n notify /bin/all.sh root\n"
                + " track_script {\n  chk weight 10\n }\n track_interface {\n  eth1 weight -5 reverse\n  eth2\n }\n"
                + " track_file {\n  tf\n }\n version 3\n no_accept\n}\n"
                + "vrrp_instance VI_2 {\n interface eth0\n virtual_router_id 52\n"
                + " virtual_ipaddress {\n  10.3.0.1\n }\n}\n"
                + "vrrp_sync_group G {\n group {\n  VI_1\n  VI_2\n }\n notify_master /bin/g.sh\n}\n");
    assertThat(c.globals().version()).isEqualTo(3);
    assertThat(c.globals().garpMasterDelay()).isEqualTo(Duration.ofSeconds(2));
    assertThat(c.globals().garpMasterRepeat()).isEqualTo(3);
    assertThat(c.globals().garpMasterRefresh()).contains(Duration.ofSeconds(60));
    assertThat(c.globals().garpInterval()).isEqualTo(Duration.ofMillis(10));
    assertThat(c.globals().skipCheckAdvAddr()).isTrue();

    VrrpScript s = c.script("chk").orElseThrow();
    assertThat(s.script().argv()).containsExactly("/usr/bin/pgrep", "-x", "nginx");
    assertThat(s.script().user()).contains("nobody");
    assertThat(s.script().group()).contains("nogroup");
    assertThat(s.interval()).isEqualTo(Duration.ofSeconds(2));
    assertThat(s.timeout()).isEqualTo(Duration.ofSeconds(1));
    assertThat(s.weight()).isEqualTo(-20);
    assertThat(s.rise()).isEqualTo(2);
    assertThat(s.fall()).isEqualTo(3);

    VrrpInstance i = c.instance("VI_1").orElseThrow();
    assertThat(i.initialState()).isEqualTo(VrrpState.BACKUP);
    assertThat(i.priority()).isEqualTo(90);
    assertThat(i.advertInterval()).isEqualTo(Duration.ofMillis(500));
    assertThat(i.version()).isEqualTo(3);
    assertThat(i.virtualAddresses())
        .extracting(VirtualAddress::toString)
        .containsExactly("10.1.0.10/24 dev eth1", "10.1.0.11/32");
    assertThat(i.virtualAddresses().get(0).label()).contains("eth1:vip");
    assertThat(i.excludedAddresses().get(0).scope()).isEqualTo(253);
    assertThat(i.preempt()).isTrue();
    assertThat(i.preemptDelay()).isEqualTo(Duration.ofSeconds(5));
    assertThat(i.unicastSource()).contains(addr("10.1.0.2"));
    assertThat(i.unicastPeers()).containsExactly(addr("10.1.0.3"), addr("10.1.0.4"));
    assertThat(i.garpMasterDelay()).isEqualTo(Duration.ofSeconds(1));
    assertThat(i.garpMasterRepeat()).isEqualTo(2);
    assertThat(i.garpMasterRefresh()).contains(Duration.ofSeconds(10));
    assertThat(i.scripts().master().orElseThrow().argv()).containsExactly("/bin/echo", "master");
    assertThat(i.scripts().any().orElseThrow().user()).contains("root");
    assertThat(i.scripts().stop()).isPresent();
    assertThat(i.trackScripts()).containsExactly(new Track("chk", Optional.of(10), false));
    assertThat(i.trackInterfaces())
        .containsExactly(
            new Track("eth1", Optional.of(-5), true), new Track("eth2", Optional.empty(), false));
    assertThat(i.trackFiles()).extracting(Track::name).containsExactly("tf");
    assertThat(i.accept()).isFalse();

    VrrpInstance two = c.instance("VI_2").orElseThrow();
    assertThat(two.priority()).isEqualTo(100);
    assertThat(two.version()).as("global vrrp_version").isEqualTo(3);
    assertThat(two.garpMasterRepeat()).as("global default").isEqualTo(3);
    SyncGroup g = c.syncGroups().get(0);
    assertThat(g.members()).containsExactly("VI_1", "VI_2");
    assertThat(c.groupOf("VI_2")).contains(g);
    assertThat(g.scripts().master()).isPresent();
  }

  @Test
  void dumpRoundTripsTheVrrpModel() {
    String text =
        "global_defs {\n vrrp_version 3\n vrrp_strict off\n}\n"
            + "vrrp_script chk {\n script \"/usr/bin/pgrep -x 'my nginx'\"\n weight -20 reverse\n"
            + " init_fail\n user nobody\n}\n"
            + instance(
                " state MASTER\n priority 200\n virtual_ipaddress {\n  10.1.0.10/24 dev eth1"
                    + " label eth1:vip scope host no_track\n }\n unicast_peer {\n  10.1.0.3\n }\n"
                    + " notify \"/bin/n.sh x\" root\n track_script {\n  chk weight 5 reverse\n }\n")
            + "vrrp_sync_group G {\n group {\n  VI_1\n }\n notify_fault /bin/f\n}\n";
    ParseResult r = Fixtures.parse(text);
    String dump = KeepalivedConfig.dump(r.config());
    ParseResult back = Fixtures.parse(dump);
    assertThat(back.config().vrrp()).isEqualTo(r.config().vrrp());
    assertThat(back.warnings()).isEmpty();
  }

  @Test
  void keepalivedDefaults() {
    VrrpInstance i = vrrp(instance(" virtual_ipaddress {\n  192.0.2.1\n }\n")).instances().get(0);
    assertThat(i.initialState()).isEqualTo(VrrpState.BACKUP);
    assertThat(i.priority()).isEqualTo(100);
    assertThat(i.advertInterval()).isEqualTo(Duration.ofSeconds(1));
    assertThat(i.version()).isEqualTo(2);
    assertThat(i.family()).isEqualTo(AddressFamily.INET);
    assertThat(i.preempt()).isTrue();
    assertThat(i.accept()).isTrue();
    assertThat(i.garpMasterDelay()).isEqualTo(Duration.ofSeconds(5));
    assertThat(i.garpMasterRepeat()).isEqualTo(5);
    assertThat(i.unicast()).isFalse();

    VrrpInstance master = vrrp(instance(" state MASTER\n")).instances().get(0);
    assertThat(master.priority()).as("MASTER without priority is the owner").isEqualTo(255);
    VrrpInstance owner = vrrp(instance(" priority 255\n")).instances().get(0);
    assertThat(owner.initialState()).isEqualTo(VrrpState.MASTER);

    VrrpInstance v6 =
        vrrp(instance(" virtual_ipaddress {\n  2001:db8::1/64\n }\n")).instances().get(0);
    assertThat(v6.family()).isEqualTo(AddressFamily.INET6);
    assertThat(v6.version()).as("IPv6 is always VRRPv3").isEqualTo(3);
    assertThat(v6.virtualAddresses().get(0).prefixLength()).isEqualTo(64);
  }

  @Test
  void keepalivedsAdjustmentsAreWarnings() {
    ParseResult r = Fixtures.parse(instance(" state MASTER\n priority 100\n nopreempt\n"));
    assertThat(r.config().vrrp().instances().get(0).preempt()).isTrue();
    assertThat(r.warnings())
        .extracting(Diagnostic::format)
        .anyMatch(m -> m.startsWith("test.conf:6: warning: nopreempt does not work with state"));
    ParseResult d = Fixtures.parse(instance(" nopreempt\n preempt_delay 3\n"));
    assertThat(d.config().vrrp().instances().get(0).preemptDelay()).isZero();
  }

  static Stream<Arguments> bad() {
    return Stream.of(
        Arguments.of(
            "priority 0", instance(" priority 0\n"), 4, "priority 0 is out of range 1..255"),
        Arguments.of(
            "priority 256", instance(" priority 256\n"), 4, "priority 256 is out of range 1..255"),
        Arguments.of(
            "vrid 0",
            "vrrp_instance V {\n interface eth0\n virtual_router_id 0\n}\n",
            3,
            "virtual_router_id 0 is out of range 1..255"),
        Arguments.of(
            "no vrid", "vrrp_instance V {\n interface eth0\n}\n", 1, "has no 'virtual_router_id'"),
        Arguments.of(
            "no interface",
            "vrrp_instance V {\n virtual_router_id 3\n}\n",
            1,
            "has no 'interface'"),
        Arguments.of(
            "duplicate vrid on one interface",
            instance("") + "vrrp_instance VI_2 {\n interface eth0\n virtual_router_id 51\n}\n",
            5,
            "virtual_router_id 51 is already used on interface eth0 by VI_1 (test.conf:1)"),
        Arguments.of(
            "use_vmac",
            instance(" use_vmac\n"),
            4,
            "'use_vmac' is not supported: Fairway does not create macvlan interfaces"),
        Arguments.of(
            "auth AH",
            instance(" authentication {\n  auth_type AH\n }\n"),
            5,
            "auth_type AH is not supported"),
        Arguments.of(
            "auth on v3",
            instance(" version 3\n authentication {\n  auth_type PASS\n" + "  auth_pass x\n }\n"),
            5,
            "authentication is VRRPv2 only"),
        Arguments.of(
            "owner as backup",
            instance(" state BACKUP\n priority 255\n"),
            5,
            "priority 255 is the address owner"),
        Arguments.of(
            "mixed families",
            instance(" virtual_ipaddress {\n  10.0.0.1\n" + "  2001:db8::1\n }\n"),
            6,
            "IPv4 and IPv6 addresses cannot be mixed"),
        Arguments.of(
            "v2 with IPv6",
            instance(" version 2\n virtual_ipaddress {\n" + "  2001:db8::1\n }\n"),
            1,
            "VRRPv2 carries IPv4 only"),
        Arguments.of(
            "v2 fractional advert",
            instance(" advert_int 0.5\n"),
            4,
            "VRRPv2 advertises whole seconds"),
        Arguments.of(
            "bad prefix",
            instance(" virtual_ipaddress {\n  10.0.0.1/33\n }\n"),
            5,
            "prefix '33' must be 0..32"),
        Arguments.of(
            "unsupported vip option",
            instance(" virtual_ipaddress {\n" + "  10.0.0.1 brd 10.0.0.255\n }\n"),
            5,
            "option 'brd' is not supported"),
        Arguments.of(
            "unknown keyword",
            instance(" priorty 5\n"),
            4,
            "unknown keyword 'priorty' in vrrp_instance (did you mean 'priority'?)"),
        Arguments.of(
            "undefined track_script",
            instance(" track_script {\n  nope\n }\n"),
            1,
            "track_script 'nope' is not a vrrp_script"),
        Arguments.of(
            "peer of another family",
            instance(" unicast_peer {\n  2001:db8::2\n }\n"),
            1,
            "unicast_peer 2001:db8::2 is not of the instance's family inet"),
        Arguments.of(
            "sync group of unknown",
            "vrrp_sync_group G {\n group {\n  VI_9\n }\n}\n",
            3,
            "'VI_9' is not a vrrp_instance"),
        Arguments.of(
            "script weight",
            "vrrp_script s {\n script /bin/true\n weight 300\n}\n",
            3,
            "weight 300 is out of range -253..253"),
        Arguments.of(
            "script without script",
            "vrrp_script s {\n interval 1\n}\n",
            1,
            "vrrp_script s has no 'script'"),
        Arguments.of(
            "bad state", instance(" state PRIMARY\n"), 4, "state must be MASTER or BACKUP"),
        Arguments.of(
            "global version",
            "global_defs {\n vrrp_version 4\n}\n",
            2,
            "version 4 is out of range 2..3"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("bad")
  void badInputIsOneFileLineError(String name, String text, int line, String message) {
    ConfigException e = catchThrowableOfType(ConfigException.class, () -> Fixtures.parse(text));
    assertThat(e).as(name).isNotNull();
    assertThat(e.getMessage()).contains("test.conf:" + line + ": ").contains(message);
    assertThat(e.getMessage().lines().filter(l -> l.contains(message))).hasSize(1);
  }

  @Test
  void keepalivedSampleLoads() throws Exception {
    ParseResult r =
        KeepalivedConfig.parse(SAMPLES.resolve("keepalived.conf.sample"), Fixtures.OPTIONS);
    VrrpInstance i = r.config().vrrp().instance("VI_1").orElseThrow();
    assertThat(i.interfaceName()).isEqualTo("eth0");
    assertThat(i.virtualRouterId()).isEqualTo(50);
    assertThat(i.preempt()).isFalse();
    assertThat(i.virtualAddresses())
        .extracting(a -> a.address().getHostAddress())
        .containsExactly("192.168.200.11", "192.168.200.12", "192.168.200.13");
    assertThat(r.config().virtualServers()).isNotEmpty();
  }

  @Test
  void keepalivedSslGetSampleIsRefusedForItsAuthTypeAh() throws Exception {
    ConfigException e =
        catchThrowableOfType(
            ConfigException.class,
            () ->
                KeepalivedConfig.parse(
                    SAMPLES.resolve("keepalived.conf.SSL_GET"), Fixtures.OPTIONS));
    assertThat(e.getMessage())
        .contains(
            "keepalived.conf.SSL_GET:20: auth_type AH is not "
                + "supported: RFC 3768 removed IPsec AH");
    String pass =
        Files.readString(SAMPLES.resolve("keepalived.conf.SSL_GET"))
            .replace("auth_type AH", "auth_type PASS");
    assertThat(vrrp(pass).instances())
        .isNotEmpty()
        .allSatisfy(i -> assertThat(i.authPass()).isPresent());
  }

  @Test
  void oldSyncGroupSyntaxIsAnErrorAsKeepalived22ReportsIt() throws Exception {
    // keepalived 2.2.7 -t on this sample: "Unknown keyword 'VI_2'" (it then runs without the
    // group).
    String text = Files.readString(SAMPLES.resolve("keepalived.conf.vrrp.lvs_syncd"));
    ConfigException e = catchThrowableOfType(ConfigException.class, () -> Fixtures.parse(text));
    assertThat(e.getMessage())
        .contains(
            "test.conf:4: vrrp_sync_group VG1: instance names go " + "inside 'group { ... }'");
    VrrpConfig fixed = vrrp(text.replace("  VI_2\n  VI_3\n", "  group {\n  VI_2\n  VI_3\n }\n"));
    assertThat(fixed.syncGroups().get(0).members()).containsExactly("VI_2", "VI_3");
    assertThat(fixed.instance("VI_1").orElseThrow().lvsSyncDaemonInterface()).contains("eth1");
    assertThat(fixed.instance("VI_1").orElseThrow().authPass()).contains("grr02");
    assertThat(fixed.instance("VI_3").orElseThrow().interfaceName()).isEqualTo("eth1");
  }

  @Test
  void sameRouterIdOnAnotherInterfaceOrFamilyIsFine() {
    VrrpConfig c =
        vrrp(
            instance("")
                + "vrrp_instance VI_2 {\n interface eth1\n"
                + " virtual_router_id 51\n}\nvrrp_instance VI_6 {\n interface eth0\n"
                + " virtual_router_id 51\n virtual_ipaddress {\n  fe80::51/64\n }\n}\n");
    assertThat(c.instances()).hasSize(3);
  }

  @Test
  void longAuthPassIsTruncatedToEightBytesLikeKeepalived() {
    ParseResult r =
        Fixtures.parse(
            instance(" authentication {\n  auth_type PASS\n" + "  auth_pass 0123456789\n }\n"));
    assertThat(r.config().vrrp().instances().get(0).authPass()).contains("01234567");
    assertThat(r.warnings())
        .extracting(Diagnostic::message)
        .anyMatch(m -> m.contains("longer than 8 bytes"));
  }

  static InetAddress addr(String s) {
    return Objects.requireNonNull(Values.address(s), "test addresses are literals");
  }

  @SuppressWarnings("unused")
  private static List<Object> unused() {
    return List.of();
  }
}
