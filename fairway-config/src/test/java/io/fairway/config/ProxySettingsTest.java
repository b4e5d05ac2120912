package io.fairway.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.fairway.config.model.ProxySettings;
import io.fairway.config.model.VirtualServer;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code proxy_timeouts { }} and {@code http_forwarded}: parsed, refused with file:line, dumped
 * back.
 */
class ProxySettingsTest {
  static final String HEAD = "virtual_server 127.0.0.1 80 {\n    lb_kind HTTP\n";
  static final String RS = "    real_server 127.0.0.2 80 {\n    }\n}\n";

  static VirtualServer vs(String lines) {
    return Fixtures.parse(HEAD + lines + RS).config().virtualServers().get(0);
  }

  @Test
  void everyTimeoutIsReadAndTheRestStayTheDataPlanesDefault() {
    VirtualServer v =
        vs(
            "    http_forwarded\n    proxy_timeouts {\n        request_head 5\n        request_body 30.5\n"
                + "        request_body_min_rate 1000\n        connect 0.25\n        first_byte 20\n        keepalive 7\n"
                + "        idle 120\n        tunnel 3600\n    }\n");
    ProxySettings.Timeouts t = v.proxy().timeouts();
    assertThat(v.proxy().forwarded()).isTrue();
    assertThat(t.requestHead()).contains(Duration.ofSeconds(5));
    assertThat(t.requestBody()).contains(Duration.ofMillis(30_500));
    assertThat(t.requestBodyMinRate()).isEqualTo(OptionalLong.of(1000));
    assertThat(t.connect()).contains(Duration.ofMillis(250));
    assertThat(t.firstByte()).contains(Duration.ofSeconds(20));
    assertThat(t.keepAlive()).contains(Duration.ofSeconds(7));
    assertThat(t.idle()).contains(Duration.ofMinutes(2));
    assertThat(t.tunnel()).contains(Duration.ofHours(1));
    VirtualServer some = vs("    proxy_timeouts {\n        idle 10\n    }\n");
    assertThat(some.proxy().timeouts().idle()).contains(Duration.ofSeconds(10));
    assertThat(some.proxy().timeouts().connect()).isEqualTo(Optional.empty());
    assertThat(some.proxy().forwarded()).isFalse();
    assertThat(vs("").proxy()).isEqualTo(ProxySettings.DEFAULTS);
  }

  @Test
  void theDumpReadsBackToTheSameModel() {
    String text =
        HEAD
            + "    http_forwarded on\n    proxy_timeouts {\n        request_body 0.5\n        request_body_min_rate 0\n"
            + "        tunnel 60\n    }\n"
            + RS;
    VirtualServer first = Fixtures.parse(text).config().virtualServers().get(0);
    String dump = KeepalivedConfig.dump(Fixtures.parse(text).config());
    assertThat(dump).contains("http_forwarded").contains("request_body 0.5").contains("tunnel 60");
    assertThat(Fixtures.parse(dump).config().virtualServers().get(0).proxy())
        .isEqualTo(first.proxy());
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "        idle 0|4: idle: must be more than 0 seconds",
        "        idle soon|4: idle: 'soon' is not a time in seconds",
        "        connect|4: 'connect' needs 1 argument",
        "        request_body_min_rate -1|4: request_body_min_rate: bytes per second -1 is out of range",
        "        idel 5|4: unknown keyword 'idel' in proxy_timeouts (did you mean 'idle'?)",
      })
  void badValuesNameFileAndLine(String line, String message) {
    ConfigException e =
        catchThrowableOfType(
            ConfigException.class,
            () -> Fixtures.parse(HEAD + "    proxy_timeouts {\n" + line + "\n    }\n" + RS));
    assertThat(e).isNotNull();
    assertThat(e.getMessage()).startsWith("test.conf:" + message);
  }
}
