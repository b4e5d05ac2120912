package io.fairway.config;

import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * The configuration does not load. This is the only exception the parser lets out, whatever the
 * input: its message is one {@code FILE:LINE: message | offending text} line per error.
 */
public final class ConfigException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final transient List<Diagnostic> errors;
  private final transient List<Diagnostic> warnings;

  public ConfigException(List<Diagnostic> errors, List<Diagnostic> warnings) {
    super(errors.stream().map(Diagnostic::format).collect(Collectors.joining("\n")));
    this.errors = List.copyOf(errors);
    this.warnings = List.copyOf(warnings);
  }

  /** The errors, in file order (at least one). */
  /** The errors, one formatted line each; never null, as the constructor always sets it. */
  @Override
  public String getMessage() {
    return Objects.requireNonNull(super.getMessage(), "the constructor sets the message");
  }

  public List<Diagnostic> errors() {
    return errors;
  }

  /** Warnings found before parsing stopped. */
  public List<Diagnostic> warnings() {
    return warnings;
  }
}
