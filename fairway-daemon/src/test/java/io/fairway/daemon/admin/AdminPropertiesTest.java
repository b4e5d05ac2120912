package io.fairway.daemon.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The admin listener's {@code -Dfairway.admin.*Seconds} properties are bounded as every duration
 * is: whole seconds from 1 to 24 h, or one line naming the property. A property of this test's own
 * (the real ones would leak into other tests of this JVM).
 */
class AdminPropertiesTest {
  static final String NAME = "fairway.admin.testOnlySeconds";

  @AfterEach
  void clear() {
    System.clearProperty(NAME);
  }

  @Test
  void unsetIsTheDefaultAndAValueInRangeIsTaken() {
    assertThat(AdminProperties.seconds(NAME, Duration.ofSeconds(10)))
        .isEqualTo(Duration.ofSeconds(10));
    System.setProperty(NAME, "86400");
    assertThat(AdminProperties.seconds(NAME, Duration.ofSeconds(10))).isEqualTo(Duration.ofDays(1));
    System.setProperty(NAME, " 1 ");
    assertThat(AdminProperties.seconds(NAME, Duration.ofSeconds(10)))
        .isEqualTo(Duration.ofSeconds(1));
  }

  @Test
  void outOfRangeOrNotWholeSecondsIsOneLineNamingTheProperty() {
    for (String bad :
        new String[] {
          "0", "-5", "86401", "9223372036854775807", "99999999999999999999", "1.5", "abc", ""
        }) {
      System.setProperty(NAME, bad);
      assertThatThrownBy(() -> AdminProperties.seconds(NAME, Duration.ofSeconds(10)))
          .as(bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("-D" + NAME + "=")
          .hasMessageEndingWith("expected whole seconds from 1 to 86400")
          .hasMessageNotContaining("\n");
    }
  }
}
