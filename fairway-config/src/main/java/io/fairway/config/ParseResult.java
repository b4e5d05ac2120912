package io.fairway.config;

import io.fairway.config.model.Config;
import java.util.List;

/**
 * A configuration that loaded, with the warnings met on the way (ignored VRRP blocks, keywords
 * Fairway does not support yet, keepalived's load-time adjustments).
 */
public record ParseResult(Config config, List<Diagnostic> warnings) {
  public ParseResult {
    warnings = List.copyOf(warnings);
  }
}
