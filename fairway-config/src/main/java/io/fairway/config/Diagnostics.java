package io.fairway.config;

import java.util.ArrayList;
import java.util.List;

/**
 * Collects errors and warnings while parsing; parsing goes on after an error to report more. Each
 * kind keeps its first {@link #SHOWN}; the rest are counted and summed up in one last "and K more"
 * line, so a broken or hostile file prints a screenful, not half a million lines.
 */
final class Diagnostics {
  /** How many errors, and how many warnings, are kept. */
  static final int SHOWN = 100;

  private final List<Diagnostic> errors = new ArrayList<>();
  private final List<Diagnostic> warnings = new ArrayList<>();
  private long moreErrors;
  private long moreWarnings;
  private String lastFile = "";

  void error(String file, int line, String message, String text) {
    lastFile = file;
    if (errors.size() < SHOWN) {
      errors.add(new Diagnostic(file, line, Diagnostic.Severity.ERROR, message, text));
    } else {
      moreErrors++;
    }
  }

  void warn(String file, int line, String message, String text) {
    lastFile = file;
    if (warnings.size() < SHOWN) {
      warnings.add(new Diagnostic(file, line, Diagnostic.Severity.WARNING, message, text));
    } else {
      moreWarnings++;
    }
  }

  boolean hasErrors() {
    return !errors.isEmpty();
  }

  List<Diagnostic> errors() {
    return withSummary(errors, moreErrors, Diagnostic.Severity.ERROR, "errors");
  }

  List<Diagnostic> warnings() {
    return withSummary(warnings, moreWarnings, Diagnostic.Severity.WARNING, "warnings");
  }

  private List<Diagnostic> withSummary(
      List<Diagnostic> kept, long more, Diagnostic.Severity severity, String what) {
    if (more == 0) {
      return List.copyOf(kept);
    }
    List<Diagnostic> all = new ArrayList<>(kept);
    all.add(
        new Diagnostic(
            lastFile,
            0,
            severity,
            String.format("and %,d more %s (only the first %d are shown)", more, what, SHOWN),
            ""));
    return List.copyOf(all);
  }

  void throwIfErrors() {
    if (!errors.isEmpty()) {
      throw new ConfigException(errors(), warnings());
    }
  }
}
