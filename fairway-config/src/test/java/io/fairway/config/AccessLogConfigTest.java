package io.fairway.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.fairway.config.model.AccessLogs;
import io.fairway.config.model.VirtualServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code access_log PATH combined|json}: parsed, refused with file:line, dumped back. */
class AccessLogConfigTest {
  static final String HEAD = "virtual_server 127.0.0.1 80 {\n    lb_kind HTTP\n";
  static final String RS = "    real_server 127.0.0.2 80 {\n    }\n}\n";

  @Test
  void severalLogsAreKeptInOrderAndTheDumpReadsBack() {
    String text =
        HEAD
            + "    access_log /var/log/fairway/access.log combined\n"
            + "    access_log /var/log/fairway/access.json json\n"
            + "    access_log syslog json\n"
            + RS;
    VirtualServer v = Fixtures.parse(text).config().virtualServers().get(0);
    assertThat(v.accessLogs().logs())
        .extracting(AccessLogs.Entry::path, AccessLogs.Entry::format)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(
                "/var/log/fairway/access.log", AccessLogs.Format.COMBINED),
            org.assertj.core.groups.Tuple.tuple(
                "/var/log/fairway/access.json", AccessLogs.Format.JSON),
            org.assertj.core.groups.Tuple.tuple("syslog", AccessLogs.Format.JSON));
    assertThat(v.accessLogs().logs().get(2).syslog()).isTrue();
    assertThat(v.accessLogs().logs().get(0).location().line()).isEqualTo(3);
    String dump = KeepalivedConfig.dump(Fixtures.parse(text).config());
    assertThat(dump)
        .contains("access_log /var/log/fairway/access.log combined")
        .contains("access_log syslog json");
    assertThat(Fixtures.parse(dump).config().virtualServers().get(0).accessLogs())
        .isEqualTo(v.accessLogs());
    assertThat(Fixtures.parse(HEAD + RS).config().virtualServers().get(0).accessLogs())
        .isEqualTo(AccessLogs.NONE);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "    access_log /var/log/a.log|3: 'access_log' needs 2 arguments",
        "    access_log logs/a.log combined|3: access_log: 'logs/a.log' is neither an absolute path nor 'syslog'",
        "    access_log /var/log/a.log clf|3: access_log: unknown format 'clf' (combined or json)",
      })
  void badLinesNameFileAndLine(String line, String message) {
    ConfigException e =
        catchThrowableOfType(ConfigException.class, () -> Fixtures.parse(HEAD + line + "\n" + RS));
    assertThat(e).isNotNull();
    assertThat(e.getMessage()).startsWith("test.conf:" + message);
  }

  @Test
  void theSameFileTwiceIsRefused() {
    ConfigException e =
        catchThrowableOfType(
            ConfigException.class,
            () ->
                Fixtures.parse(
                    HEAD
                        + "    access_log /var/log/a.log combined\n    access_log /var/log/a.log json\n"
                        + RS));
    assertThat(e.getMessage())
        .startsWith("test.conf:4: access_log: /var/log/a.log is already this virtual server's log");
  }
}
