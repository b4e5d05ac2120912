package io.fairway.config;

import static io.fairway.config.LineText.MAX_LINE_BYTES;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * keepalived's {@code $NAME=value} definitions (multi-line with a trailing backslash) and their
 * substitution: {@code $NAME}, {@code ${NAME}} and the builtins ({@code ${_PWD}}, {@code
 * ${_INSTANCE}}, {@code ${_ENV X}}, {@code ${_RANDOM}}, {@code ${_HASH}}, {@code ${_BANG}}).
 *
 * <p>Why apart: substitution is the one expansion that recurses into itself, and its depth and
 * length bounds are easier to check in one place; the repeaters reuse it by binding their variable
 * as a definition for each round.
 */
final class Definitions {
  /** How deeply definitions and repeaters may nest before the input is taken as runaway. */
  static final int MAX_EXPANSION_DEPTH = 32;

  private static final Pattern DEFINITION =
      Pattern.compile("\\$([A-Za-z_][A-Za-z0-9_]*)=[ \t]*(.*)");
  private static final Pattern ALONE = Pattern.compile("\\$\\{?([A-Za-z_][A-Za-z0-9_]*)\\}?");

  private final ParseOptions options;
  private final Diagnostics diags;
  private final BudgetGuard guard;
  private final Map<String, List<String>> definitions = new HashMap<>();

  /** Each file's directory by the name it is shown as, for {@code ${_PWD}}. */
  private final Map<String, String> dirs = new HashMap<>();

  Definitions(ParseOptions options, Diagnostics diags, BudgetGuard guard) {
    this.options = options;
    this.diags = diags;
    this.guard = guard;
  }

  /** The match of a {@code $NAME=value} line, or null when {@code t} is not a definition. */
  static @Nullable Matcher definition(String t) {
    Matcher def = t.charAt(0) == '$' ? DEFINITION.matcher(t) : null;
    return def != null && def.matches() ? def : null;
  }

  /**
   * Records the definition {@code def} matched on {@code physical[i]}; a value that ends in a
   * backslash goes on over the next lines. Returns the index of the last line the definition took.
   */
  int define(Matcher def, String[] physical, int i, String file) {
    String name = def.group(1);
    String value = def.group(2);
    List<String> lines = new ArrayList<>();
    if (value.endsWith("\\")) {
      lines.add(value.substring(0, value.length() - 1).strip());
      while (i + 1 < physical.length) {
        i++;
        String next = LineText.decomment(LineText.stripCr(physical[i]), file, i + 1, diags);
        if (next == null) {
          next = "";
        }
        boolean more = next.endsWith("\\");
        lines.add(more ? next.substring(0, next.length() - 1).strip() : next);
        if (!more) {
          break;
        }
      }
      lines.removeIf(String::isEmpty);
    } else {
      lines.add(value);
    }
    if (lines.isEmpty()) {
      lines.add("");
    }
    definitions.put(name, List.copyOf(lines));
    return i;
  }

  /** Records the directory of the file shown as {@code displayName}, for {@code ${_PWD}}. */
  void directory(String displayName, String dir) {
    dirs.put(displayName, dir);
  }

  /** Runs {@code body} with each of {@code vars} defined as its value, then restores them. */
  void with(Map<String, String> vars, Runnable body) {
    Map<String, List<String>> saved = new HashMap<>();
    vars.forEach((k, v) -> saved.put(k, definitions.put(k, List.of(v))));
    body.run();
    saved.forEach(
        (k, v) -> {
          if (v == null) {
            definitions.remove(k);
          } else {
            definitions.put(k, v);
          }
        });
  }

  /**
   * Replaces {@code $NAME} and {@code ${NAME}}; a multi-line definition used alone on a line
   * becomes several lines. Returns false after reporting an error or when the budget ran out.
   */
  boolean substitute(String t, String file, int lineNo, int depth, Consumer<String> sink) {
    if (t.indexOf('$') < 0) {
      return produced(t, file, lineNo, sink);
    }
    if (tooDeep(t, file, lineNo, depth)) {
      return false;
    }
    String trimmed = t.strip();
    Matcher alone = ALONE.matcher(trimmed);
    if (alone.matches()) {
      List<String> def = definitions.get(alone.group(1));
      if (def != null && def.size() > 1 && (trimmed.charAt(1) != '{' || trimmed.endsWith("}"))) {
        return lines(def, alone.group(1), t, file, lineNo, depth, sink);
      }
    }
    String s = replace(t, file, lineNo, depth);
    return s != null && produced(s, file, lineNo, sink);
  }

  /** A multi-line definition {@code name} used alone on line {@code t}: one line per line. */
  private boolean lines(
      List<String> def,
      String name,
      String t,
      String file,
      int lineNo,
      int depth,
      Consumer<String> sink) {
    // A line of the definition may itself be a multi-line definition used alone, which
    // keepalived expands into lines too rather than joining them into one. Lines go to the
    // sink one by one as they are produced (and charged): nothing holds a definition's
    // expansion, which may stand for billions of lines.
    boolean outermost = guard.idle();
    if (outermost) {
      guard.enter(new BudgetGuard.Construct(file, lineNo, "$" + name, t));
    }
    try {
      for (String l : def) {
        if (!substitute(l, file, lineNo, depth + 1, sink) || guard.exceeded()) {
          return false;
        }
      }
    } finally {
      if (outermost) {
        guard.leave();
      }
    }
    return true;
  }

  /** Charges a produced line and hands it on; false when the budget ran out. */
  private boolean produced(String line, String file, int lineNo, Consumer<String> sink) {
    if (guard.over(guard.budget().chargeLine(line.length()), file, lineNo, line)) {
      return false;
    }
    sink.accept(line);
    return true;
  }

  /**
   * Whether an expansion has gone deeper than any real definition needs, reported once here for
   * both ways a definition recurses: through the lines of a multi-line definition and through the
   * words of a line.
   */
  private boolean tooDeep(String t, String file, int lineNo, int depth) {
    if (depth <= MAX_EXPANSION_DEPTH) {
      return false;
    }
    diags.error(
        file,
        lineNo,
        "definition expands into itself (more than " + MAX_EXPANSION_DEPTH + " levels)",
        t);
    return true;
  }

  private @Nullable String replace(String t, String file, int lineNo, int depth) {
    if (tooDeep(t, file, lineNo, depth)) {
      return null;
    }
    StringBuilder sb = new StringBuilder();
    int i = 0;
    while (i < t.length()) {
      char c = t.charAt(i);
      if (sb.length() > 4 * MAX_LINE_BYTES) {
        diags.error(
            file,
            lineNo,
            "line longer than " + MAX_LINE_BYTES + " bytes after expansion",
            LineText.head(t));
        return null;
      }
      if (c != '$' || i + 1 >= t.length()) {
        sb.append(c);
        i++;
        continue;
      }
      i =
          t.charAt(i + 1) == '{'
              ? braced(t, i, sb, file, lineNo, depth)
              : named(t, i, sb, file, lineNo, depth);
      if (i < 0) {
        return null;
      }
    }
    return sb.toString();
  }

  /**
   * {@code ${NAME}} or a builtin ({@code ${_ENV X}}) at {@code i}: appends its expansion, or the
   * text as written when it names nothing; the index after it, -1 after an error.
   */
  private int braced(String t, int i, StringBuilder sb, String file, int lineNo, int depth) {
    int close = t.indexOf('}', i + 2);
    if (close < 0) {
      sb.append('$');
      return i + 1;
    }
    String inside = t.substring(i + 2, close).strip();
    String[] parts = inside.split("[ \t]+");
    String value = builtinOrDefinition(parts, file);
    if (value == null) {
      sb.append(t, i, close + 1);
    } else {
      String r = replace(value, file, lineNo, depth + 1);
      if (r == null) {
        return -1;
      }
      sb.append(r);
    }
    return close + 1;
  }

  /**
   * {@code $NAME} at {@code i}: appends its expansion, or the text as written when the name is not
   * defined (as in keepalived); the index after it, -1 after an error.
   */
  private int named(String t, int i, StringBuilder sb, String file, int lineNo, int depth) {
    int j = i + 1;
    while (j < t.length()
        && ((Character.isLetterOrDigit(t.charAt(j)) && t.charAt(j) < 128) || t.charAt(j) == '_')) {
      j++;
    }
    String name = t.substring(i + 1, j);
    boolean boundary =
        j == t.length()
            || LineText.isBlank(t.charAt(j))
            || t.charAt(j) == ','
            || t.charAt(j) == ')';
    List<String> def =
        name.isEmpty() || Character.isDigit(name.charAt(0)) || !boundary
            ? null
            : definitions.get(name);
    if (def == null) {
      sb.append(t, i, j);
      return j;
    }
    String r = replace(String.join(" ", def), file, lineNo, depth + 1);
    if (r == null) {
      return -1;
    }
    sb.append(r);
    return j;
  }

  private @Nullable String builtinOrDefinition(String[] parts, String file) {
    String name = parts[0];
    switch (name) {
      case "_PWD" -> {
        return dirs.getOrDefault(file, ".");
      }
      case "_INSTANCE" -> {
        return options.configId();
      }
      case "_HASH" -> {
        return "#";
      }
      case "_BANG" -> {
        return "!";
      }
      case "_ENV" -> {
        return parts.length > 1 ? options.environment().getOrDefault(parts[1], "") : "";
      }
      case "_RANDOM" -> {
        return random(parts);
      }
      default -> {
        List<String> def = definitions.get(name);
        return def == null ? null : String.join(" ", def);
      }
    }
  }

  /** {@code ${_RANDOM [min [max]]}}, 0 to 32767 by default; null when the bounds are not. */
  private static @Nullable String random(String[] parts) {
    long min = 0;
    long max = 32767;
    try {
      if (parts.length > 1) {
        min = Long.parseLong(parts[1]);
      }
      if (parts.length > 2) {
        max = Long.parseLong(parts[2]);
      }
    } catch (NumberFormatException e) {
      return null;
    }
    if (max < min) {
      return null;
    }
    return Long.toString(min + ThreadLocalRandom.current().nextLong(max - min + 1));
  }
}
