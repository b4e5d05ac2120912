package io.fairway.cli;

import io.netty.util.ResourceLeakDetector;
import java.util.Optional;
import java.util.function.Function;

/**
 * Netty's buffer leak detector for the {@code fairway} process. Netty's default level samples
 * buffer allocations and records stack traces for the sampled ones: CPU on the proxy's hot path,
 * for a check that only pays off while hunting a leak. The {@code ./fairway} launcher passes {@code
 * -Dio.netty.leakDetection.level=disabled}; this gives {@code java -jar fairway.jar} the same
 * default, while a level the operator chose, or {@code FAIRWAY_DEBUG=1} (paranoid, to find a leak),
 * still wins.
 */
final class LeakDetection {
  /** Netty's property, the older name it still reads, and its deprecated on/off switch. */
  static final String PROPERTY = "io.netty.leakDetection.level";

  static final String OLD_PROPERTY = "io.netty.leakDetectionLevel";
  static final String OLD_SWITCH = "io.netty.noResourceLeakDetection";

  private LeakDetection() {}

  /**
   * The level Fairway sets, or empty when the operator set one: it is Netty's to read then.
   *
   * @param property reads a system property (null when unset)
   * @param env reads an environment variable (null when unset)
   */
  static Optional<ResourceLeakDetector.Level> choose(
      Function<String, String> property, Function<String, String> env) {
    if (property.apply(PROPERTY) != null
        || property.apply(OLD_PROPERTY) != null
        || property.apply(OLD_SWITCH) != null) {
      return Optional.empty();
    }
    if ("1".equals(env.apply("FAIRWAY_DEBUG"))) {
      return Optional.of(ResourceLeakDetector.Level.PARANOID);
    }
    return Optional.of(ResourceLeakDetector.Level.DISABLED);
  }

  /** Applies {@link #choose} to this process; call before the first buffer is allocated. */
  static void configure() {
    choose(System::getProperty, System::getenv).ifPresent(ResourceLeakDetector::setLevel);
  }
}
