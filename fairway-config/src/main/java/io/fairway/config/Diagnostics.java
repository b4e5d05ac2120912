package io.fairway.config;

import java.util.ArrayList;
import java.util.List;

/** Collects errors and warnings while parsing; parsing goes on after an error to report more. */
final class Diagnostics {
  private static final int MAX_ERRORS = 100;

  private final List<Diagnostic> errors = new ArrayList<>();
  private final List<Diagnostic> warnings = new ArrayList<>();

  void error(String file, int line, String message, String text) {
    if (errors.size() < MAX_ERRORS) {
      errors.add(new Diagnostic(file, line, Diagnostic.Severity.ERROR, message, text));
    }
  }

  void warn(String file, int line, String message, String text) {
    warnings.add(new Diagnostic(file, line, Diagnostic.Severity.WARNING, message, text));
  }

  boolean hasErrors() {
    return !errors.isEmpty();
  }

  List<Diagnostic> errors() {
    return List.copyOf(errors);
  }

  List<Diagnostic> warnings() {
    return List.copyOf(warnings);
  }

  void throwIfErrors() {
    if (!errors.isEmpty()) {
      throw new ConfigException(errors, warnings);
    }
  }
}
