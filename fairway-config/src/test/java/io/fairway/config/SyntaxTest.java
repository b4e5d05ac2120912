package io.fairway.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.config.model.RealServer;
import io.fairway.config.model.VirtualServer;
import org.junit.jupiter.api.Test;

/** keepalived's lexical rules (lib/parser.c), one at a time. */
class SyntaxTest {

  static String routerId(String text) {
    return Fixtures.parse(text).config().globalDefs().routerId().orElse("<none>");
  }

  @Test
  void commentsEndTheLineOutsideQuotesOnly() {
    assertThat(routerId("global_defs {\n router_id a # b\n}\n")).isEqualTo("a");
    assertThat(routerId("global_defs {\n router_id a! b\n}\n")).isEqualTo("a");
    assertThat(routerId("global_defs {\n router_id \"a # b\"\n}\n")).isEqualTo("a # b");
    assertThat(routerId("global_defs {\n router_id a\\#b\n}\n")).isEqualTo("a#b");
  }

  @Test
  void bracesAreTheirOwnTokensAnywhere() {
    assertThat(routerId("global_defs { router_id x }")).isEqualTo("x");
    assertThat(routerId("global_defs\n{\nrouter_id y\n}")).isEqualTo("y");
    assertThat(routerId("global_defs{router_id \"a{b}\"}")).isEqualTo("a{b}");
    VirtualServer vs =
        Fixtures.parse(
                "virtual_server 127.0.0.1 80 { protocol TCP\n"
                    + "real_server 127.0.0.2 80 { weight 4 } real_server 127.0.0.3 80 { } }")
            .config()
            .virtualServers()
            .get(0);
    assertThat(vs.realServers()).extracting(RealServer::weight).containsExactly(4.0, 1.0);
  }

  @Test
  void quotesGroupAndCrLfIsTolerated() {
    assertThat(routerId("global_defs {\r\n router_id \"two words\"\r\n}\r\n"))
        .isEqualTo("two words");
  }

  @Test
  void definitionsSubstituteWithAndWithoutBraces() {
    assertThat(routerId("$R=abc\nglobal_defs {\n router_id $R\n}")).isEqualTo("abc");
    assertThat(routerId("$R=abc\nglobal_defs {\n router_id ${R}def\n}")).isEqualTo("abcdef");
    // $NAME must end at a blank, ',' or ')' - otherwise it is left alone
    assertThat(routerId("$R=abc\nglobal_defs {\n router_id $Rdef\n}")).isEqualTo("$Rdef");
    assertThat(routerId("global_defs {\n router_id $UNDEFINED\n}")).isEqualTo("$UNDEFINED");
    // redefinition takes effect for later lines; definitions may use definitions
    assertThat(routerId("$A=1\n$B=${A}2\n$A=3\nglobal_defs {\n router_id $B\n}")).isEqualTo("32");
  }

  @Test
  void builtins() {
    assertThat(routerId("global_defs {\n router_id ${_INSTANCE}\n}")).isEqualTo("testhost");
    assertThat(routerId("global_defs {\n router_id ${_ENV FAIRWAY_TEST_ENV}\n}"))
        .isEqualTo("from-env");
    assertThat(routerId("global_defs {\n router_id a${_HASH}b\n}")).isEqualTo("a#b");
    int r = Integer.parseInt(routerId("global_defs {\n router_id ${_RANDOM 5 7}\n}"));
    assertThat(r).isBetween(5, 7);
  }

  @Test
  void multiLineDefinitionExpandsIntoLines() {
    String text = "$G= \\\nglobal_defs { \\\n router_id ml \\\n}\n$G\n";
    assertThat(routerId(text)).isEqualTo("ml");
  }

  @Test
  void multiLineDefinitionInsideAnotherExpandsIntoLinesToo() {
    // keepalived accepts this: $CHK stands alone on a line of $RS, so it becomes two lines.
    String text =
        "$CHK=connect_timeout 2 \\\nretry 4\n"
            + "$RS=real_server 10.16.1.1 80 { \\\n TCP_CHECK { \\\n $CHK \\\n } \\\n}\n"
            + "virtual_server 10.16.0.1 80 {\n lb_algo rr\n lb_kind NAT\n protocol TCP\n $RS\n}\n";
    var checker =
        Fixtures.parse(text)
            .config()
            .virtualServers()
            .get(0)
            .realServers()
            .get(0)
            .checkers()
            .get(0);
    assertThat(checker.connectTimeout()).hasSeconds(2);
    assertThat(checker.retry()).isEqualTo(4);
  }

  @Test
  void conditionalLines() {
    assertThat(routerId("global_defs {\n@testhost router_id mine\n@^testhost router_id theirs\n}"))
        .isEqualTo("mine");
    assertThat(routerId("global_defs {\n@other router_id mine\n@^other router_id theirs\n}"))
        .isEqualTo("theirs");
  }

  @Test
  void sequencesAndLists() {
    VirtualServer vs =
        Fixtures.parse(
                "virtual_server 127.0.0.1 80 {\nprotocol TCP\n"
                    + "~SEQ(I, 3) real_server 127.0.0.$I 80 { }\n"
                    + "~SEQ(J, 20, 10, 40) real_server 127.0.0.$J 80 { }\n"
                    + "~SEQx(K, 0xa, 0xb) real_server fd00::$K 80 { lvs_method TUN }\n"
                    + "~LST(L, 50, 51) ~LST(P, 1, 2) real_server 127.0.0.$L 9$P { }\n}")
            .config()
            .virtualServers()
            .get(0);
    assertThat(vs.realServers())
        .extracting(rs -> rs.id().toString())
        .containsExactly(
            "127.0.0.1:80",
            "127.0.0.2:80",
            "127.0.0.3:80",
            "127.0.0.20:80",
            "127.0.0.30:80",
            "127.0.0.40:80",
            "[fd00::a]:80",
            "[fd00::b]:80",
            "127.0.0.50:91",
            "127.0.0.50:92",
            "127.0.0.51:91",
            "127.0.0.51:92");
  }

  @Test
  void scriptQuotingAndEscapes() {
    VirtualServer vs =
        Fixtures.parse(
                "virtual_server 127.0.0.1 80 {\nprotocol TCP\n"
                    + "quorum_up \"/bin/echo 'a b' c\\tx\" root wheel\n"
                    + "quorum_down '/bin/echo \"q\"'\n"
                    + "real_server 127.0.0.2 80 { }\n}")
            .config()
            .virtualServers()
            .get(0);
    assertThat(vs.quorum().up().orElseThrow().argv()).containsExactly("/bin/echo", "a b", "c\tx");
    assertThat(vs.quorum().up().orElseThrow().user()).contains("root");
    assertThat(vs.quorum().up().orElseThrow().group()).contains("wheel");
    assertThat(vs.quorum().down().orElseThrow().argv()).containsExactly("/bin/echo", "q");
  }

  @Test
  void keepalivedAdjustmentsAreWarnings() {
    ParseResult r =
        Fixtures.parse(
            "virtual_server 127.0.0.1 80 {\n quorum 10\n hysteresis 20\n"
                + " real_server 127.0.0.2 80 { weight 3 }\n real_server 127.0.0.3 80 { weight 2 }\n}\n"
                + "virtual_server 127.0.0.1 0 {\n protocol TCP\n real_server 127.0.0.2 80 { }\n}\n");
    VirtualServer a = r.config().virtualServers().get(0);
    assertThat(a.quorum().quorum()).isEqualTo(5);
    assertThat(a.quorum().hysteresis()).isEqualTo(4);
    assertThat(a.id().toString()).startsWith("UDP"); // keepalived's default, with a warning
    VirtualServer b = r.config().virtualServers().get(1);
    assertThat(b.persistence().timeout().toSeconds()).isEqualTo(360);
    assertThat(r.warnings())
        .extracting(Diagnostic::message)
        .anyMatch(m -> m.contains("defaulting to UDP"))
        .anyMatch(m -> m.contains("reducing quorum to 5"))
        .anyMatch(m -> m.contains("setting hysteresis to 4"))
        .anyMatch(m -> m.contains("port 0 is only valid for persistent services"));
  }

  @Test
  void emptyAndVrrpOnlyFilesLoad() {
    assertThat(Fixtures.parse("").config().virtualServers()).isEmpty();
    ParseResult r =
        Fixtures.parse(
            "vrrp_instance X {\n state MASTER\n interface eth0\n"
                + " virtual_router_id 7\n virtual_ipaddress {\n  10.0.0.1\n }\n}\n"
                + "vrrp_sync_group G { group { X } }\n");
    assertThat(r.warnings()).isEmpty();
    assertThat(r.config().virtualServers()).isEmpty();
    assertThat(r.config().vrrp().instances()).hasSize(1);
    assertThat(r.config().vrrp().syncGroups().get(0).members()).containsExactly("X");
  }

  @Test
  void keywordsKeepalivedKnowsButFairwayDoesNotAreWarnings() {
    ParseResult r =
        Fixtures.parse(
            "virtual_server 127.0.0.1 80 {\nprotocol TCP\nsmtp_alert\n"
                + "real_server 127.0.0.2 80 { HTTP_GET { url {\npath /\nregex_stack 1 2 } } }\n}");
    assertThat(r.warnings())
        .extracting(Diagnostic::format)
        .anyMatch(m -> m.startsWith("test.conf:3: warning: 'smtp_alert' is not supported"))
        .anyMatch(m -> m.startsWith("test.conf:6: warning: regex_stack has no meaning"));
  }

  @Test
  void haSuspendNeedsAnAddress() {
    ParseResult r =
        Fixtures.parse(
            "virtual_server fwmark 3 {\n ha_suspend\n"
                + " real_server 127.0.0.2 80 { }\n}\nvirtual_server 127.0.0.1 80 {\n protocol TCP\n"
                + " ha_suspend\n real_server 127.0.0.2 80 { }\n}\n");
    assertThat(r.config().virtualServers())
        .extracting(VirtualServer::haSuspend)
        .containsExactly(false, true);
    assertThat(r.warnings()).extracting(Diagnostic::line).containsExactly(2);
  }

  @Test
  void pwdIsTheDirectoryOfTheFileBeingRead(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
      throws Exception {
    java.nio.file.Files.writeString(
        dir.resolve("k.conf"), "global_defs {\n router_id ${_PWD}\n}\n");
    assertThat(
            KeepalivedConfig.parse(dir.resolve("k.conf"), Fixtures.OPTIONS)
                .config()
                .globalDefs()
                .routerId())
        .contains(dir.toAbsolutePath().toString());
  }
}
