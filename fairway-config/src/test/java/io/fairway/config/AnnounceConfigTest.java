package io.fairway.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.fairway.config.model.Announcement;
import io.fairway.config.model.Config;
import java.time.Duration;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code announce_table}, {@code announce_withdraw_delay}, {@code lvs_sloppy_tcp} and {@code
 * announce}: parsed, refused with file:line, dumped back.
 */
class AnnounceConfigTest {
  static final String VS =
      "virtual_server 192.0.2.10 80 {\n    lb_kind HTTP\n    announce\n"
          + "    real_server 127.0.0.2 80 {\n    }\n}\n";

  @Test
  void theKeywordsReachTheModel() {
    Config c =
        Fixtures.parse(
                "global_defs {\n    announce_table 100\n    announce_withdraw_delay 0.5\n"
                    + "    lvs_sloppy_tcp\n}\n"
                    + VS)
            .config();
    Announcement a = c.globalDefs().announcement();
    assertThat(a.table()).isEqualTo(OptionalInt.of(100));
    assertThat(a.withdrawDelay()).isEqualTo(Duration.ofMillis(500));
    assertThat(a.lvsSloppyTcp()).isTrue();
    assertThat(a.tableAt().line()).as("announce_table's line, for start errors").isEqualTo(2);
    assertThat(a.sloppyTcpAt().line()).isEqualTo(4);
    assertThat(c.virtualServers().get(0).announce()).isTrue();
  }

  @Test
  void withoutTheKeywordsNothingIsAnnounced() {
    Config c = Fixtures.parse(VS.replace("    announce\n", "")).config();
    assertThat(c.globalDefs().announcement()).isEqualTo(Announcement.NONE);
    assertThat(c.virtualServers().get(0).announce()).isFalse();
  }

  @Test
  void theDumpReadsBackToTheSameModel() {
    String text = "global_defs {\n    announce_table 4000\n    announce_withdraw_delay 7\n}\n" + VS;
    Config first = Fixtures.parse(text).config();
    String dump = KeepalivedConfig.dump(first);
    assertThat(dump).contains("announce_table 4000").contains("announce_withdraw_delay 7");
    Config again = Fixtures.parse(dump).config();
    assertThat(again.globalDefs().announcement()).isEqualTo(first.globalDefs().announcement());
    assertThat(again.virtualServers().get(0).announce()).isTrue();
    assertThat(KeepalivedConfig.dump(Fixtures.parse(VS.replace("announce\n", "")).config()))
        .doesNotContain("announce");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "announce_table 254|2: announce_table 254 is the kernel's own",
        "announce_table 0|2: announce_table: table 0 is out of range",
        "announce_table|2: 'announce_table' needs 1 argument",
        "announce_withdraw_delay soon|2: announce_withdraw_delay: 'soon' is not a time in seconds",
        "announce_withdraw_delay 301|2: announce_withdraw_delay: at most 300 seconds",
        "lvs_sloppy_tcp yes|2: 'lvs_sloppy_tcp' takes at most 0 arguments",
      })
  void badGlobalsNameFileAndLine(String line, String message) {
    assertThat(error("global_defs {\n    " + line + "\n}\n" + VS))
        .startsWith("test.conf:" + message);
  }

  @Test
  void announceNeedsATableAndAnAddress() {
    assertThat(error(VS))
        .startsWith("test.conf:1: virtual_server 192.0.2.10:80 has 'announce' but global_defs");
    assertThat(
            error(
                "global_defs {\n    announce_table 100\n}\nvirtual_server fwmark 1 {\n"
                    + "    announce\n    real_server 127.0.0.2 80 {\n    }\n}\n"))
        .contains("test.conf:5: announce needs a virtual_server with an address");
  }

  private static String error(String text) {
    ConfigException e = catchThrowableOfType(ConfigException.class, () -> Fixtures.parse(text));
    assertThat(e).as("an error for:\n" + text).isNotNull();
    return e.getMessage();
  }
}
