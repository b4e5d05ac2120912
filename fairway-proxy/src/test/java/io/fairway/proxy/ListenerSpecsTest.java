package io.fairway.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.config.KeepalivedConfig;
import io.fairway.config.ParseOptions;
import io.fairway.config.model.Config;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The listener spec the daemon derives from keepalived.conf for the userspace table. */
class ListenerSpecsTest {
  private static final String CONF =
      """
      virtual_server 127.0.0.1 8080 {
          name web
          lb_algo shard
          lb_kind HTTP
          shard {
              replicas 100
              by HEADER X-User
              warmup 0.5
              rampup 30
          }
          sorry_server 127.0.0.1 9999
          real_server 127.0.0.1 9001 {
          }
      }
      virtual_server 127.0.0.1 8081 {
          lb_algo hash
          lb_kind HTTP
          hash {
              by COOKIE session
          }
          real_server 127.0.0.1 9001 {
          }
      }
      virtual_server 127.0.0.1 8082 {
          lb_algo wlc
          lb_kind NAT
          real_server 127.0.0.1 9003 {
          }
      }
      virtual_server 127.0.0.1 8083 {
          lb_algo shard
          lb_kind HTTP
          real_server 127.0.0.1 9003 {
          }
      }
      """;

  @Test
  void derivesModeKeyParamsAndSorryServer() {
    Config c = KeepalivedConfig.parse("test.conf", CONF, Path.of("."), ParseOptions.defaults()).config();
    ListenerSpec web = ListenerSpecs.from(c.virtualServers().get(0));
    assertThat(web.mode()).isEqualTo(Mode.HTTP);
    assertThat(web.keySource()).isEqualTo(KeySource.header("X-User"));
    assertThat(web.directorParams()).containsEntry("replicas", "100").containsEntry("warmup", "0.5").containsEntry("rampup", "30.0");
    assertThat(web.sorryServer()).isEqualTo(new InetSocketAddress("127.0.0.1", 9999));

    assertThat(ListenerSpecs.from(c.virtualServers().get(1)).keySource()).isEqualTo(KeySource.cookie("session"));
    ListenerSpec nat = ListenerSpecs.from(c.virtualServers().get(2));
    assertThat(nat.mode()).isEqualTo(Mode.TCP);
    assertThat(nat.sorryServer()).isNull();
    // shard on HTTP defaults to Varnish's HASH, which in client context is the URL.
    assertThat(ListenerSpecs.from(c.virtualServers().get(3)).keySource()).isEqualTo(KeySource.URL);
  }

  @Test
  void carriesTheHashBalanceFactor() {
    String conf = "virtual_server 127.0.0.1 8080 {\n lb_algo mh\n lb_kind PROXY\n protocol TCP\n"
        + " hash_balance_factor 150\n real_server 127.0.0.1 9001 {\n }\n}\n";
    Config c = KeepalivedConfig.parse("t.conf", conf, Path.of("."), ParseOptions.defaults()).config();
    assertThat(ListenerSpecs.from(c.virtualServers().get(0)).directorParams())
        .containsEntry("hash_balance_factor", "150");
    Config off = KeepalivedConfig.parse("t.conf", conf.replace(" hash_balance_factor 150\n", ""),
        Path.of("."), ParseOptions.defaults()).config();
    assertThat(ListenerSpecs.from(off.virtualServers().get(0)).directorParams())
        .doesNotContainKey("hash_balance_factor");
  }

  @Test
  void keySourceParsesTheConfigForm() {
    assertThat(KeySource.parse("by URL")).isEqualTo(KeySource.URL);
    assertThat(KeySource.parse("by header X-User")).isEqualTo(KeySource.header("X-User"));
    assertThat(KeySource.parse("COOKIE sid")).isEqualTo(KeySource.cookie("sid"));
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> KeySource.parse("by HEADER"))
        .hasMessageContaining("needs exactly one name");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> KeySource.parse("by BODY"))
        .hasMessageContaining("unknown key source");
  }

  @Test
  void proxyTimeoutsAndForwardedPassToTheSpecAndResolveOverTheTablesDefaults() {
    String conf = "virtual_server 127.0.0.1 8080 {\n    lb_kind HTTP\n    http_forwarded\n"
        + "    proxy_timeouts {\n        request_body 5\n        tunnel 3600\n    }\n"
        + "    real_server 127.0.0.1 9001 {\n    }\n}\n";
    Config c = KeepalivedConfig.parse("test.conf", conf, Path.of("."), ParseOptions.defaults()).config();
    ListenerSpec spec = ListenerSpecs.from(c.virtualServers().get(0));
    assertThat(spec.forwarded()).isTrue();
    Timeouts t = Timeouts.of(ProxyOptions.defaults(), spec.proxy().timeouts());
    assertThat(t.requestBody()).isEqualTo(java.time.Duration.ofSeconds(5));
    assertThat(t.tunnel()).isEqualTo(java.time.Duration.ofHours(1));
    assertThat(t.requestHead()).isEqualTo(ProxyOptions.defaults().clientHeaderTimeout());
    assertThat(t.idle()).isEqualTo(ProxyOptions.defaults().idleTimeout());
    assertThat(t.requestBodyMinRate()).isEqualTo(Timeouts.REQUEST_BODY_MIN_RATE);
  }
}
