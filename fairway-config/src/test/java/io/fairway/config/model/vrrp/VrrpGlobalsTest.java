package io.fairway.config.model.vrrp;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.RecordComponent;
import java.net.InetAddress;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The builder carries every keyword: a new one that toBuilder() forgot to copy fails here. */
class VrrpGlobalsTest {
  @Test
  void everyValueSurvivesToBuilder() throws Exception {
    VrrpGlobals changed =
        VrrpGlobals.builder()
            .version(3)
            .garpMasterDelay(Duration.ofSeconds(2))
            .garpMasterRepeat(3)
            .garpMasterRefresh(Optional.of(Duration.ofSeconds(60)))
            .garpMasterRefreshRepeat(2)
            .garpInterval(Duration.ofMillis(1))
            .gnaInterval(Duration.ofMillis(2))
            .lowerPrioNoAdvert(true)
            .skipCheckAdvAddr(true)
            .strict(true)
            .mcastGroup4(InetAddress.getByName("224.0.0.19"))
            .mcastGroup6(InetAddress.getByName("ff02::13"))
            .startupDelay(Optional.of(Duration.ofSeconds(5)))
            .build();
    VrrpGlobals defaults = VrrpGlobals.defaults();
    for (RecordComponent c : VrrpGlobals.class.getRecordComponents()) {
      assertThat(c.getAccessor().invoke(changed))
          .as("the test sets %s", c.getName())
          .isNotEqualTo(c.getAccessor().invoke(defaults));
    }
    assertThat(changed.toBuilder().build()).isEqualTo(changed);
    assertThat(defaults.toBuilder().build()).isEqualTo(defaults);
  }
}
