package io.fairway.config;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.regex.Matcher;
import org.jspecify.annotations.Nullable;

/**
 * Turns keepalived.conf files into logical lines, as keepalived's lib/parser.c does before any
 * keyword is looked at: comments, {@code @id} conditional lines, {@code $NAME=value} definitions
 * and their substitution, {@code ~SEQ}/{@code ~LST} repeaters, {@code include} and splitting {@code
 * {}} and {@code }} onto lines of their own.
 *
 * <p>Everything that can explode (recursive definitions, repeaters, include loops and fan-outs) is
 * bounded by a {@link Budget} charged as each line is produced, so hostile input ends in one error
 * at the line that started it, not in memory exhaustion: a ten-level definition or three nested
 * repeaters stand for billions of lines in a few bytes.
 *
 * <p>This class walks the lines and decides what each one is; each kind of expansion is a class of
 * its own ({@link Definitions}, {@link Repeaters}, {@link Includes}), all charging one {@link
 * BudgetGuard}, and the character-level rules are {@link LineText}'s.
 */
final class Preprocessor {

  /** A logical line: the text of one keyword line, or a lone brace. */
  record Line(String file, int line, String text) {}

  private final ParseOptions options;
  private final Diagnostics diags;
  private final List<Line> out = new ArrayList<>();
  private final BudgetGuard guard;
  private final Definitions definitions;
  private final Repeaters repeaters;
  private final Includes includes;

  Preprocessor(ParseOptions options, Diagnostics diags) {
    this.options = options;
    this.diags = diags;
    this.guard = new BudgetGuard(new Budget(options.limits()), diags);
    this.definitions = new Definitions(options, diags, guard);
    this.repeaters = new Repeaters(diags, guard, definitions, this::expand);
    this.includes = new Includes(diags, guard, definitions, this::readText);
  }

  /** Whether a limit was reached: the lines stop there, and the file does not load. */
  boolean overBudget() {
    return guard.exceeded();
  }

  /** Reads a file (and what it includes) into logical lines. */
  List<Line> read(Path file, String displayName) {
    String text;
    try {
      text = includes.readFile(file, false);
    } catch (IOException | SecurityException e) {
      diags.error(displayName, 0, "cannot read file: " + FileErrors.why(e), "");
      return out;
    }
    if (text == null) {
      diags.error(
          displayName,
          0,
          "cannot read file: it is larger than " + guard.budget().chargeInput(1, false),
          "");
      return out;
    }
    readText(
        text,
        displayName,
        Objects.requireNonNull(
            file.toAbsolutePath().getParent(), "a file that could be read has a directory"));
    return out;
  }

  /** Reads configuration text; {@code baseDir} anchors relative includes and {@code ${_PWD}}. */
  List<Line> readText(String text, String displayName, Path baseDir) {
    String[] physical = text.split("\n", -1);
    for (int i = 0; i < physical.length && !guard.exceeded(); i++) {
      String raw = LineText.stripCr(physical[i]);
      int lineNo = i + 1;
      if (LineText.tooLong(raw)) {
        diags.error(
            displayName,
            lineNo,
            "line longer than keepalived's limit of " + LineText.MAX_LINE_BYTES + " bytes",
            LineText.head(raw));
        continue;
      }
      String t = LineText.decomment(raw, displayName, lineNo, diags);
      if (t == null || t.isEmpty()) {
        continue;
      }
      t = conditional(t);
      if (t == null || t.isEmpty()) {
        continue;
      }
      Matcher def = Definitions.definition(t);
      if (def != null) {
        i = definitions.define(def, physical, i, displayName);
        continue;
      }
      expand(t, displayName, lineNo, baseDir, 0);
    }
    return out;
  }

  /** {@code @ID rest} keeps rest only on the host whose config id is ID; {@code @^ID} elsewhere. */
  private @Nullable String conditional(String t) {
    while (t.startsWith("@")) {
      int sp = 1;
      while (sp < t.length() && !LineText.isBlank(t.charAt(sp))) {
        sp++;
      }
      String id = t.substring(1, sp);
      boolean negate = id.startsWith("^");
      if (negate) {
        id = id.substring(1);
      }
      boolean match = id.equals(options.configId());
      if (match == negate) {
        return null;
      }
      t = t.substring(sp).strip();
    }
    return t;
  }

  private void expand(String t, String file, int lineNo, Path baseDir, int depth) {
    if (guard.exceeded()) {
      return;
    }
    if (depth > Definitions.MAX_EXPANSION_DEPTH) {
      diags.error(file, lineNo, "repeaters or definitions nested too deeply", t);
      return;
    }
    if (Repeaters.isRepeater(t)) {
      repeaters.repeat(t, file, lineNo, baseDir, depth);
      return;
    }
    definitions.substitute(t, file, lineNo, 0, l -> expanded(l, t, file, lineNo, baseDir, depth));
  }

  /** One line that substitution produced from {@code t}. */
  private void expanded(String l, String t, String file, int lineNo, Path baseDir, int depth) {
    if (guard.exceeded()) {
      return;
    }
    // Substituted text is not decommented again: ${_HASH} and ${_BANG} exist to produce a
    // literal '#' or '!', and definitions were decommented where they were written.
    String d = l.strip();
    if (d.isEmpty()) {
      return;
    }
    if (!d.equals(t)) {
      d = conditional(d);
      if (d == null || d.isEmpty()) {
        return;
      }
      if (Repeaters.isRepeater(d)) {
        expand(d, file, lineNo, baseDir, depth + 1);
        return;
      }
    }
    if (LineText.tooLong(d)) {
      diags.error(
          file,
          lineNo,
          "line longer than " + LineText.MAX_LINE_BYTES + " bytes after expansion",
          LineText.head(d));
      return;
    }
    // Only a bare first word counts, as in keepalived: a quoted "include" is a value.
    if (d.startsWith("include") && LineText.isInclude(d)) {
      includes.include(Tokenizer.tokens(d).toArray(String[]::new), d, file, lineNo, baseDir);
      return;
    }
    splitBraces(d, file, lineNo);
  }

  /** Text before the first unquoted brace is one line, the brace another, and so on. */
  private void splitBraces(String d, String file, int lineNo) {
    boolean inQuote = false;
    int start = 0;
    for (int i = 0; i < d.length(); i++) {
      char c = d.charAt(i);
      if (c == '"') {
        inQuote = !inQuote;
      } else if (!inQuote && (c == '{' || c == '}')) {
        emit(d.substring(start, i), file, lineNo);
        emit(String.valueOf(c), file, lineNo);
        start = i + 1;
      }
    }
    emit(d.substring(start), file, lineNo);
  }

  private void emit(String text, String file, int lineNo) {
    String s = text.strip();
    if (s.isEmpty() || guard.over(guard.budget().chargeWords(LineText.words(s)), file, lineNo, s)) {
      return;
    }
    out.add(new Line(file, lineNo, s));
  }

  void registerTopDir(String displayName, @Nullable Path dir) {
    if (dir != null) {
      definitions.directory(displayName, dir.toString());
    }
  }
}
