package io.fairway.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.fairway.config.model.HealthCheck;
import io.fairway.config.model.HttpCheck;
import io.fairway.config.model.RegexOption;
import io.fairway.config.model.UrlCheck;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * rise/fall, verify_cert/ca_file and the url regex keywords: what they parse to, which values are
 * refused with file:line, and that {@code --dump} prints them back to the same model.
 */
class HealthCheckExtensionsTest {

  static final String HEAD = "virtual_server 127.0.0.1 80 {\n    protocol TCP\n";

  static String conf(
      String vsLines, String rsLines, String checker, String checkerLines, String urlLines) {
    return HEAD
        + vsLines
        + "    real_server 127.0.0.2 80 {\n"
        + rsLines
        + "        "
        + checker
        + " {\n"
        + checkerLines
        + "            url {\n                path /health\n"
        + urlLines
        + "            }\n"
        + "        }\n    }\n}\n";
  }

  static List<HealthCheck> checkers(String text) {
    return Fixtures.parse(text).config().virtualServers().get(0).realServers().get(0).checkers();
  }

  static HttpCheck http(String text) {
    return (HttpCheck) checkers(text).get(0);
  }

  @Test
  void riseAndFallAreReadAtEveryLevelNearestWins() {
    HttpCheck vsLevel = http(conf("    rise 4\n    fall 3\n", "", "HTTP_GET", "", ""));
    assertThat(vsLevel.timing().rise()).isEqualTo(4);
    assertThat(vsLevel.timing().retry()).isEqualTo(2); // fall 3 = retry 2
    HttpCheck own = http(conf("    rise 4\n", "        rise 2\n", "HTTP_GET", "    fall 1\n", ""));
    assertThat(own.timing().rise()).isEqualTo(2);
    assertThat(own.timing().retry()).isZero();
    HttpCheck none = http(conf("", "", "HTTP_GET", "", ""));
    assertThat(none.timing().rise()).isEqualTo(1); // keepalived: one success is enough
    assertThat(none.timing().retry()).isEqualTo(1);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "rise 0|rise: count 0 is out of range 1..2147483647",
        "rise|'rise' needs 1 argument",
        "fall abc|fall: count 'abc' is not a number",
        "fall 0|fall: count 0 is out of range 1..2147483647",
      })
  void badRiseAndFallNameFileAndLine(String line, String message) {
    ConfigException e =
        catchThrowableOfType(
            ConfigException.class,
            () ->
                Fixtures.parse(
                    conf("", "", "TCP_CHECK", "            " + line + "\n", "")
                        .replace(
                            "            url {\n                path /health\n            }\n",
                            "")));
    assertThat(e).isNotNull();
    assertThat(e.getMessage()).startsWith("test.conf:5: " + message);
  }

  @Test
  void fallAndRetryInOneBlockIsAnError() {
    ConfigException e =
        catchThrowableOfType(
            ConfigException.class,
            () -> Fixtures.parse(conf("    retry 2\n    fall 3\n", "", "HTTP_GET", "", "")));
    assertThat(e.getMessage()).startsWith("test.conf:4: fall: this block already has retry");
    // ...but a fall below a retry is the nearest level winning, as for every timing keyword.
    assertThat(http(conf("    retry 2\n", "", "HTTP_GET", "    fall 3\n", "")).timing().retry())
        .isEqualTo(2);
  }

  @Test
  void verifyCertIsAnSslGetExtensionOffByDefault() {
    HttpCheck plain = http(conf("", "", "SSL_GET", "", ""));
    assertThat(plain.verifyCert()).isFalse();
    assertThat(plain.caFile()).isEmpty();
    HttpCheck on =
        http(
            conf(
                "",
                "",
                "SSL_GET",
                "            verify_cert\n            ca_file /etc/ssl/our-ca.pem\n",
                ""));
    assertThat(on.verifyCert()).isTrue();
    assertThat(on.caFile()).contains("/etc/ssl/our-ca.pem");
    assertThat(http(conf("", "", "SSL_GET", "            verify_cert off\n", "")).verifyCert())
        .isFalse();
    ConfigException e =
        catchThrowableOfType(
            ConfigException.class,
            () -> Fixtures.parse(conf("", "", "HTTP_GET", "            verify_cert\n", "")));
    assertThat(e.getMessage()).startsWith("test.conf:5: verify_cert and ca_file apply to SSL_GET");
  }

  @Test
  void regexKeywordsParse() {
    UrlCheck u =
        http(conf(
                "",
                "",
                "HTTP_GET",
                "",
                "                regex \"^ok$\"\n"
                    + "                regex_no_match\n                regex_options caseless multiline\n"
                    + "                regex_min_offset 3\n                regex_max_offset 10\n"))
            .urls()
            .get(0);
    assertThat(u.regex()).contains("^ok$");
    assertThat(u.regexNoMatch()).isTrue();
    assertThat(u.regexOptions()).isEqualTo(Set.of(RegexOption.CASELESS, RegexOption.MULTILINE));
    assertThat(u.regexMinOffset()).isEqualTo(3);
    assertThat(u.regexMaxOffset()).isEqualTo(OptionalLong.of(10));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "regex_options caseles|7|regex_options: unknown option 'caseles' (did you mean 'caseless'?)",
        "regex_options ungreedy|7|regex_options: 'ungreedy' has no Java equivalent; Fairway supports",
        "regex_min_offset -1|7|regex_min_offset: offset -1 is out of range 0..",
        "regex_max_offset 2|7|regex_max_offset 2 is below regex_min_offset 5",
      })
  void badRegexSettingsNameFileAndLine(String line, int at, String message) {
    ConfigException e =
        catchThrowableOfType(
            ConfigException.class,
            () ->
                Fixtures.parse(
                    conf(
                        "",
                        "",
                        "HTTP_GET",
                        "",
                        "                regex ok\n                regex_min_offset 5\n                "
                            + line
                            + "\n")));
    assertThat(e).isNotNull();
    assertThat(e.getMessage()).startsWith("test.conf:" + (at + 2) + ": " + message);
  }

  @Test
  void aRegexJavaCannotCompileIsAnErrorAtItsLine() {
    ConfigException e =
        catchThrowableOfType(
            ConfigException.class,
            () ->
                Fixtures.parse(
                    conf("", "", "HTTP_GET", "", "                regex \"(unclosed\"\n")));
    assertThat(e.getMessage()).startsWith("test.conf:7: regex: Unclosed group");
    // extended mode lets blanks and # comments into a pattern: compiled with the options.
    assertThat(
            http(conf(
                    "",
                    "",
                    "HTTP_GET",
                    "",
                    "                regex \"a # comment\"\n"
                        + "                regex_options extended\n"))
                .urls()
                .get(0)
                .regex())
        .isPresent();
  }

  @Test
  void regexSettingsWithoutARegexAreWarnedAndDropped() {
    ParseResult r =
        Fixtures.parse(conf("", "", "HTTP_GET", "", "                regex_min_offset 5\n"));
    UrlCheck u =
        ((HttpCheck) r.config().virtualServers().get(0).realServers().get(0).checkers().get(0))
            .urls()
            .get(0);
    assertThat(u.regexMinOffset()).isZero();
    assertThat(r.warnings())
        .extracting(Diagnostic::message)
        .anyMatch(m -> m.contains("without regex; ignored"));
  }

  @Test
  void dumpPrintsTheExtensionsBackToTheSameModel() {
    var c =
        Fixtures.parse(
                conf(
                    "    rise 3\n",
                    "",
                    "SSL_GET",
                    "            fall 2\n            verify_cert\n            ca_file /etc/ca.pem\n"
                        + "            tls_compliant\n",
                    "                regex \"health: (ok|fine)\"\n                regex_options caseless dotall\n"
                        + "                regex_min_offset 1\n                regex_max_offset 64\n"
                        + "                regex_no_match\n"))
            .config();
    String dump = KeepalivedConfig.dump(c);
    assertThat(dump)
        .contains(
            "rise 3",
            "retry 1",
            "verify_cert",
            "ca_file /etc/ca.pem",
            "regex \"health: (ok|fine)\"",
            "regex_options caseless dotall",
            "regex_min_offset 1",
            "regex_max_offset 64",
            "regex_no_match");
    DumpRoundTripTest.assertRoundTrip(c);
  }

  @Test
  void aPlainKeepalivedConfigDumpsWithoutTheExtensions() {
    String dump = KeepalivedConfig.dump(Fixtures.parse(conf("", "", "SSL_GET", "", "")).config());
    assertThat(dump).doesNotContain("rise", "verify_cert", "ca_file", "regex");
  }
}
