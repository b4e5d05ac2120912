package io.fairway.config;

import java.util.Objects;

/**
 * A message about the configuration, tied to the file and line it is about.
 *
 * @param file the file as named by the operator (or the included file)
 * @param line 1-based line number, 0 if the message is about the file as a whole
 * @param severity error or warning
 * @param message what is wrong, in the operator's terms
 * @param text the offending text as written (may be empty)
 */
public record Diagnostic(String file, int line, Severity severity, String message, String text) {

  /** How bad it is. */
  public enum Severity {
    /** The file loads; something is ignored or adjusted. */
    WARNING,
    /** The file does not load. */
    ERROR
  }

  /**
   * {@code FILE:LINE: message: text}, always one line, invisible characters shown escaped ({@link
   * Printable}).
   */
  public String format() {
    String where = escaped(line > 0 ? file + ":" + line : file);
    String prefix = severity == Severity.WARNING ? "warning: " : "";
    String shown = text == null || text.isBlank() ? "" : "  | " + oneLine(text.strip());
    return where + ": " + prefix + oneLine(message) + shown;
  }

  private static String escaped(String s) {
    return Objects.requireNonNull(Printable.escape(s), "escaping keeps a string a string");
  }

  private static String oneLine(String s) {
    String t = escaped(s);
    return t.length() > 200 ? t.substring(0, 197) + "..." : t;
  }

  @Override
  public String toString() {
    return format();
  }
}
