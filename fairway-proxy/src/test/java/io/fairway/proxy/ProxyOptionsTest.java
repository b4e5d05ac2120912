package io.fairway.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.RecordComponent;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The builder carries every option: a new one that toBuilder() forgot to copy fails here. */
class ProxyOptionsTest {
  /** Every option away from its default. */
  static ProxyOptions changed() {
    return ProxyOptions.builder()
        .ioThreads(3)
        .connectTimeout(Duration.ofMillis(1500))
        .idleTimeout(Duration.ofSeconds(7))
        .clientHeaderTimeout(Duration.ofSeconds(8))
        .backendResponseTimeout(Duration.ofSeconds(9))
        .keepConnectionsOnRemove(true)
        .inactiveExpiry(Duration.ofSeconds(11))
        .maxInitialLineLength(1024)
        .maxHeaderSize(2048)
        .maxIdleBackendConnections(12)
        .backendKeepAlive(Duration.ofSeconds(13))
        .spliceThreshold(ProxyOptions.defaultSpliceThreshold() + 1)
        .udpTimeout(Duration.ofSeconds(14))
        .maxUdpFlows(15)
        .build();
  }

  @Test
  void everyOptionSurvivesToBuilder() throws Exception {
    ProxyOptions changed = changed();
    ProxyOptions defaults = ProxyOptions.defaults();
    for (RecordComponent c : ProxyOptions.class.getRecordComponents()) {
      assertThat(c.getAccessor().invoke(changed))
          .as("changed() sets %s", c.getName())
          .isNotEqualTo(c.getAccessor().invoke(defaults));
    }
    assertThat(changed.toBuilder().build()).isEqualTo(changed);
    assertThat(defaults.toBuilder().build()).isEqualTo(defaults);
  }
}
