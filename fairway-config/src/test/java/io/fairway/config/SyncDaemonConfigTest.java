package io.fairway.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.fairway.config.model.vrrp.LvsSyncDaemon;
import java.net.InetAddress;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code lvs_sync_daemon} (global_defs) and {@code lvs_sync_daemon_interface} (vrrp_instance) as
 * keepalived 2.2.7's global_parser.c lvs_syncd_handler, vrrp_parser.c vrrp_lvs_syncd_handler and
 * vrrp.c vrrp_complete_init read and complete them; where keepalived reports a value and goes on
 * without it, Fairway refuses the file.
 */
class SyncDaemonConfigTest {
  private static final String VI_1 =
      "vrrp_instance VI_1 {\n interface eth0\n"
          + " virtual_router_id 51\n virtual_ipaddress {\n  10.0.0.100\n }\n}\n";

  private static Optional<LvsSyncDaemon> sync(String text) {
    return Fixtures.parse(text).config().vrrp().syncDaemon();
  }

  private static String global(String line) {
    return "global_defs {\n " + line + "\n}\n" + VI_1;
  }

  @Test
  void theInstanceIsFollowedAndItsRouterIdIsTheDefaultSyncId() {
    LvsSyncDaemon d = sync(global("lvs_sync_daemon eth1 VI_1")).orElseThrow();
    assertThat(d.interfaceName()).isEqualTo("eth1");
    assertThat(d.instance()).contains("VI_1");
    assertThat(d.syncId()).isEqualTo(51);
    assertThat(d.maxLen()).isEmpty();
    assertThat(d.port()).isEmpty();
    assertThat(d.ttl()).isEmpty();
    assertThat(d.group()).isEmpty();
    assertThat(d.inInstance()).isFalse();
    assertThat(d.location().toString()).isEqualTo("test.conf:2");
  }

  @Test
  void withoutAnInstanceTheSyncIdIsZero() {
    LvsSyncDaemon d = sync(global("lvs_sync_daemon eth1")).orElseThrow();
    assertThat(d.instance()).isEmpty();
    assertThat(d.syncId()).isZero();
  }

  @Test
  void everyOptionIsRead() throws Exception {
    LvsSyncDaemon d =
        sync(global(
                "lvs_sync_daemon eth1 VI_1 id 7 maxlen 1400 port 8850 ttl 2" + " group 239.1.2.3"))
            .orElseThrow();
    assertThat(d.syncId()).isEqualTo(7);
    assertThat(d.maxLen()).isEqualTo(OptionalInt.of(1400));
    assertThat(d.port()).isEqualTo(OptionalInt.of(8850));
    assertThat(d.ttl()).isEqualTo(OptionalInt.of(2));
    assertThat(d.group()).contains(InetAddress.getByName("239.1.2.3"));
    LvsSyncDaemon six = sync(global("lvs_sync_daemon eth1 inst VI_1 group ff02::81")).orElseThrow();
    assertThat(six.instance()).contains("VI_1");
    assertThat(six.group()).contains(InetAddress.getByName("ff02::81"));
  }

  @Test
  void theOldPositionalSyncIdIsReadWithKeepalivedsWarning() {
    ParseResult r = Fixtures.parse(global("lvs_sync_daemon eth1 VI_1 9"));
    assertThat(r.config().vrrp().syncDaemon().orElseThrow().syncId()).isEqualTo(9);
    assertThat(r.warnings())
        .extracting(Diagnostic::format)
        .anyMatch(w -> w.startsWith("test.conf:2: warning: lvs_sync_daemon: write 'id 9'"));
  }

  @Test
  void theInstanceKeywordGivesSyncIdZeroAsKeepalived227() {
    ParseResult r =
        Fixtures.parse(
            "vrrp_instance VI_1 {\n interface eth0\n"
                + " virtual_router_id 51\n lvs_sync_daemon_interface eth1\n}\n");
    LvsSyncDaemon d = r.config().vrrp().syncDaemon().orElseThrow();
    assertThat(d.interfaceName()).isEqualTo("eth1");
    assertThat(d.instance()).contains("VI_1");
    assertThat(d.syncId()).isZero();
    assertThat(d.inInstance()).isTrue();
    assertThat(d.location().toString()).isEqualTo("test.conf:4");
    assertThat(r.warnings())
        .extracting(Diagnostic::format)
        .anyMatch(
            w ->
                w.startsWith(
                    "test.conf:4: warning: lvs_sync_daemon_interface in a vrrp_instance is"
                        + " deprecated"));
  }

  @Test
  void noKeywordNoDaemon() {
    assertThat(sync(VI_1)).isEmpty();
  }

  static Stream<Arguments> refused() {
    return Stream.of(
        Arguments.of(
            global("lvs_sync_daemon eth1 VI_9"),
            2,
            "lvs_sync_daemon: 'VI_9' is not a vrrp_instance (did you mean 'VI_1'?)"),
        Arguments.of(
            global("lvs_sync_daemon eth1 VI_1 id 256"),
            2,
            "lvs_sync_daemon: id 256 is out of range 0..255"),
        Arguments.of(
            global("lvs_sync_daemon eth1 id x"), 2, "lvs_sync_daemon: id 'x' is not a number"),
        Arguments.of(
            global("lvs_sync_daemon eth1 maxlen 0"),
            2,
            "lvs_sync_daemon: maxlen 0 is out of range 1..65507"),
        Arguments.of(
            global("lvs_sync_daemon eth1 maxlen 65508"),
            2,
            "lvs_sync_daemon: maxlen 65508 is out of range 1..65507"),
        Arguments.of(
            global("lvs_sync_daemon eth1 port 65536"),
            2,
            "lvs_sync_daemon: port 65536 is out of range 1..65535"),
        Arguments.of(
            global("lvs_sync_daemon eth1 ttl 0"),
            2,
            "lvs_sync_daemon: ttl 0 is out of range 1..255"),
        Arguments.of(
            global("lvs_sync_daemon eth1 group 10.0.0.1"),
            2,
            "lvs_sync_daemon: group 10.0.0.1 is not a multicast address"),
        Arguments.of(global("lvs_sync_daemon eth1 group nowhere"), 2, "lvs_sync_daemon: "),
        Arguments.of(
            global("lvs_sync_daemon eth1 port"), 2, "lvs_sync_daemon: 'port' needs a value"),
        Arguments.of(
            global("lvs_sync_daemon eth1 VI_1 id 1 color red"),
            2,
            "lvs_sync_daemon: unknown option 'color'"),
        Arguments.of(global("lvs_sync_daemon"), 2, "'lvs_sync_daemon' needs at least 1"),
        Arguments.of(
            global("lvs_sync_daemon averyveryverylongname0"),
            2,
            "interface name 'averyveryverylongname0' is longer than 15 characters"),
        Arguments.of(
            "global_defs {\n lvs_sync_daemon eth1\n lvs_sync_daemon eth2\n}\n",
            3,
            "lvs_sync_daemon is given twice (first at test.conf:2)"),
        Arguments.of(
            "global_defs {\n lvs_sync_daemon eth1\n}\nvrrp_instance VI_1 {\n"
                + " interface eth0\n virtual_router_id 51\n lvs_sync_daemon_interface eth1\n}\n",
            7,
            "lvs_sync_daemon_interface: the sync daemon is already given (at test.conf:2)"),
        Arguments.of(
            "vrrp_instance VI_1 {\n interface eth0\n virtual_router_id 51\n"
                + " lvs_sync_daemon_interface eth1\n}\nvrrp_instance VI_2 {\n interface eth0\n"
                + " virtual_router_id 52\n lvs_sync_daemon_interface eth2\n}\n",
            9,
            "lvs_sync_daemon_interface: the sync daemon is already given (at test.conf:4)"),
        Arguments.of(
            "global_defs {\n lvs_sync_daemon_interface eth1\n}\n",
            2,
            "lvs_sync_daemon_interface is a vrrp_instance keyword"));
  }

  @ParameterizedTest
  @MethodSource("refused")
  void badInputIsOneFileLineLine(String text, int line, String message) {
    ConfigException e = catchThrowableOfType(ConfigException.class, () -> Fixtures.parse(text));
    assertThat(e).as("refused").isNotNull();
    assertThat(e.getMessage().lines().filter(l -> l.startsWith("test.conf:")))
        .as(e.getMessage())
        .singleElement(org.assertj.core.api.InstanceOfAssertFactories.STRING)
        .startsWith("test.conf:" + line + ": ")
        .contains(message);
  }

  @Test
  void anInstanceThatIsItselfRefusedIsNotReportedTwice() {
    String text =
        "global_defs {\n lvs_sync_daemon eth1 VI_1\n}\n"
            + "vrrp_instance VI_1 {\n interface eth0\n}\n";
    ConfigException e = catchThrowableOfType(ConfigException.class, () -> Fixtures.parse(text));
    assertThat(e.getMessage())
        .contains("has no 'virtual_router_id'")
        .doesNotContain("is not a vrrp_instance");
  }

  @Test
  void theDumpWritesEveryValueAndReadsBackTheSame() {
    for (String text :
        new String[] {
          global("lvs_sync_daemon eth1 VI_1 maxlen 1400 port 8850 ttl 2 group 239.1.2.3"),
          global("lvs_sync_daemon eth1"),
          "vrrp_instance VI_1 {\n interface eth0\n virtual_router_id 51\n"
              + " lvs_sync_daemon_interface eth1\n}\n"
        }) {
      ParseResult r = Fixtures.parse(text);
      String dump = KeepalivedConfig.dump(r.config());
      ParseResult back = Fixtures.parse(dump);
      assertThat(back.config().vrrp()).as(dump).isEqualTo(r.config().vrrp());
    }
    String dump =
        KeepalivedConfig.dump(Fixtures.parse(global("lvs_sync_daemon eth1 VI_1")).config());
    assertThat(dump).contains("lvs_sync_daemon eth1 VI_1 id 51\n");
  }
}
