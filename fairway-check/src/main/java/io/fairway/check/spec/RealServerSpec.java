package io.fairway.check.spec;

import io.fairway.os.script.ScriptSpec;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A real server as the check engine sees it.
 *
 * @param name stable name used in every event, e.g. {@code "192.168.1.10:80"}
 * @param weight configured weight ({@code 0..Integer.MAX_VALUE})
 * @param checkers its checkers; none means "always alive", as in keepalived
 * @param notifyUp script run when the server becomes alive, or {@code null}
 * @param notifyDown script run when the server becomes dead, or {@code null}
 */
public record RealServerSpec(
    String name,
    int weight,
    List<CheckSpec> checkers,
    @Nullable ScriptSpec notifyUp,
    @Nullable ScriptSpec notifyDown) {
  public RealServerSpec {
    Objects.requireNonNull(name, "name");
    checkers = List.copyOf(checkers);
    if (weight < 0) {
      throw new IllegalArgumentException(
          "real server " + name + ": weight must be >= 0, got " + weight);
    }
  }

  public static RealServerSpec of(String name, int weight, CheckSpec... checkers) {
    return new RealServerSpec(name, weight, List.of(checkers), null, null);
  }
}
