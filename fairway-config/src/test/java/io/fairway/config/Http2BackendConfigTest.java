package io.fairway.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.config.model.RealServer;
import org.junit.jupiter.api.Test;

/** A real server's {@code http2}: read, refused where it cannot work (at its line), dumped back. */
class Http2BackendConfigTest {
  static final String HTTP = "virtual_server 127.0.0.1 80 {\n    lb_kind HTTP\n";

  @Test
  void http2IsReadAndOffByDefault() {
    assertThat(BackendTlsConfigTest.rs(HTTP, "        http2\n").backend().http2()).isTrue();
    assertThat(BackendTlsConfigTest.rs(HTTP, "").backend().http2()).isFalse();
  }

  @Test
  void theDumpReadsBackToTheSameSettings() {
    String text = BackendTlsConfigTest.text(HTTP, "        http2\n");
    String dump = KeepalivedConfig.dump(Fixtures.parse(text).config());
    assertThat(dump).contains("http2");
    RealServer again = Fixtures.parse(dump).config().virtualServers().get(0).realServers().get(0);
    assertThat(again.backend().http2()).isTrue();
  }

  @Test
  void aWrongUseIsAnErrorAtItsLine() {
    assertThat(
            BackendTlsConfigTest.error(
                "virtual_server 127.0.0.1 80 {\n    lb_kind PROXY\n", "        http2\n"))
        .contains(":4:")
        .contains("http2 needs lb_kind HTTP");
    assertThat(BackendTlsConfigTest.error(HTTP, "        http2 yes\n")).contains(":4:");
    assertThat(BackendTlsConfigTest.error(HTTP, "        send_proxy v2\n        http2\n"))
        .contains(":5:")
        .contains("send_proxy");
  }
}
