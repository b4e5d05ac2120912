package io.fairway.check.spec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The builder's defaults are keepalived's, and it round-trips every component. */
class HttpCheckSpecTest {
  static final InetSocketAddress TARGET =
      new InetSocketAddress(InetAddress.getLoopbackAddress(), 80);
  static final CheckTiming T = CheckTiming.of(Duration.ofSeconds(5), Duration.ofSeconds(2));

  @Test
  void defaultsArePlainHttp10FromAnywhereWithoutTlsOptions() {
    HttpCheckSpec s = HttpCheckSpec.builder(TARGET, T).urls(UrlSpec.path("/")).build();
    assertThat(s)
        .isEqualTo(
            new HttpCheckSpec(
                TARGET,
                false,
                java.util.List.of(UrlSpec.path("/")),
                null,
                null,
                false,
                null,
                false,
                CheckSource.NONE,
                T,
                false,
                false));
    assertThat(s.describe()).isEqualTo("HTTP_GET 127.0.0.1:80");
  }

  @Test
  void connectionCloseFollowsHttp11UnlessSet() {
    var b = HttpCheckSpec.builder(TARGET, T).urls(UrlSpec.path("/"));
    assertThat(b.http11(true).build().connectionClose()).isTrue();
    assertThat(b.http11(false).build().connectionClose()).isFalse();
    assertThat(b.http11(false).connectionClose(true).build().connectionClose())
        .isTrue(); // http_protocol 1.0C
  }

  @Test
  void toBuilderKeepsEveryComponent() {
    HttpCheckSpec s =
        HttpCheckSpec.builder(TARGET, T)
            .tls(true)
            .urls(UrlSpec.path("/a"), UrlSpec.path("/b"))
            .virtualHost("vh.test")
            .sniName("sni.test")
            .verifyCertificate(true)
            .caFile(Path.of("/ca.pem"))
            .http11(true)
            .source(new CheckSource(InetAddress.getLoopbackAddress(), 0, null, 0))
            .fastRecovery(true)
            .connectionClose(false)
            .build();
    assertThat(s.toBuilder().build()).isEqualTo(s);
    assertThat(s.withFastRecovery(false)).isEqualTo(s.toBuilder().fastRecovery(false).build());
    assertThat(s.withTiming(T.withRetry(7)))
        .isEqualTo(s.toBuilder().timing(T.withRetry(7)).build());
  }

  @Test
  void aCheckWithoutUrlsIsRefused() {
    assertThatThrownBy(() -> HttpCheckSpec.builder(TARGET, T).tls(true).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("SSL_GET needs at least one url");
  }
}
