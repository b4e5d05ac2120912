package io.fairway.config;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;

/**
 * Inputs to parsing besides the file.
 *
 * @param configId the id that {@code @ID} / {@code @^ID} lines are compared with (keepalived's
 *     {@code --config-id}; default: the host name up to the first dot)
 * @param environment what {@code ${_ENV NAME}} reads
 * @param limits how much text the file may expand to ({@link ParseLimits#defaults()})
 */
public record ParseOptions(String configId, Map<String, String> environment, ParseLimits limits) {
  public ParseOptions {
    Objects.requireNonNull(configId, "configId");
    environment = Map.copyOf(environment);
    Objects.requireNonNull(limits, "limits");
  }

  /** With the default limits. */
  public ParseOptions(String configId, Map<String, String> environment) {
    this(configId, environment, ParseLimits.defaults());
  }

  /** The host's short name and environment, as keepalived would use them. */
  public static ParseOptions defaults() {
    return new ParseOptions(shortHostname(), System.getenv());
  }

  /** Defaults with another config id. */
  public ParseOptions withConfigId(String id) {
    return new ParseOptions(id, environment, limits);
  }

  /** The same with other limits. */
  public ParseOptions withLimits(ParseLimits l) {
    return new ParseOptions(configId, environment, l);
  }

  static String shortHostname() {
    String name = null;
    try {
      name = Files.readString(Path.of("/proc/sys/kernel/hostname")).strip();
    } catch (IOException | RuntimeException e) {
      name = System.getenv("HOSTNAME");
    }
    if (name == null || name.isEmpty()) {
      return "localhost";
    }
    int dot = name.indexOf('.');
    return dot > 0 ? name.substring(0, dot) : name;
  }
}
