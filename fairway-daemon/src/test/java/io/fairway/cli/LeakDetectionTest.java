package io.fairway.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.util.ResourceLeakDetector.Level;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Which leak detection level {@code fairway} sets for Netty, and when it leaves Netty's alone. */
class LeakDetectionTest {

  static Optional<Level> choose(Map<String, String> properties, Map<String, String> env) {
    return LeakDetection.choose(properties::get, env::get);
  }

  @Test
  void offWhenNobodyAsked() {
    assertThat(choose(Map.of(), Map.of())).contains(Level.DISABLED);
    assertThat(choose(Map.of("io.netty.allocator.type", "pooled"), Map.of("FAIRWAY_DEBUG", "0")))
        .contains(Level.DISABLED);
  }

  @Test
  void fairwayDebugTurnsItOnAtParanoid() {
    assertThat(choose(Map.of(), Map.of("FAIRWAY_DEBUG", "1"))).contains(Level.PARANOID);
  }

  @Test
  void configureSetsTheChosenLevelOnNetty() {
    Level before = io.netty.util.ResourceLeakDetector.getLevel();
    try {
      io.netty.util.ResourceLeakDetector.setLevel(Level.SIMPLE);
      LeakDetection.configure();
      // This JVM's own properties and FAIRWAY_DEBUG decide, as they do for java -jar fairway.jar.
      Level expected =
          LeakDetection.choose(System::getProperty, System::getenv).orElse(Level.SIMPLE);
      assertThat(io.netty.util.ResourceLeakDetector.getLevel()).isEqualTo(expected);
    } finally {
      io.netty.util.ResourceLeakDetector.setLevel(before);
    }
  }

  @Test
  void aLevelTheOperatorSetIsLeftToNetty() {
    assertThat(choose(Map.of("io.netty.leakDetection.level", "simple"), Map.of())).isEmpty();
    assertThat(choose(Map.of("io.netty.leakDetectionLevel", "advanced"), Map.of())).isEmpty();
    assertThat(choose(Map.of("io.netty.noResourceLeakDetection", "false"), Map.of())).isEmpty();
    // The launcher's FAIRWAY_DEBUG=1 passes -D...=paranoid: the explicit property wins either way.
    assertThat(
            choose(
                Map.of("io.netty.leakDetection.level", "disabled"), Map.of("FAIRWAY_DEBUG", "1")))
        .isEmpty();
  }
}
