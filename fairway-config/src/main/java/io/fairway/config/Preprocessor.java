package io.fairway.config;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

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
 */
final class Preprocessor {

  /** keepalived's MAXBUF is 1024 bytes including the terminating NUL. */
  static final int MAX_LINE_BYTES = 1023;

  private static final int MAX_INCLUDE_DEPTH = 32;
  private static final int MAX_EXPANSION_DEPTH = 32;
  private static final Pattern DEFINITION =
      Pattern.compile("\\$([A-Za-z_][A-Za-z0-9_]*)=[ \t]*(.*)");
  private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
  private static final Pattern INCLUDE = Pattern.compile("include[rmwba]?");
  private static final Pattern ALONE = Pattern.compile("\\$\\{?([A-Za-z_][A-Za-z0-9_]*)\\}?");

  /** A logical line: the text of one keyword line, or a lone brace. */
  record Line(String file, int line, String text) {}

  private final ParseOptions options;
  private final Diagnostics diags;
  private final Map<String, List<String>> definitions = new HashMap<>();
  private final List<Line> out = new ArrayList<>();
  private final Budget budget;

  /** The includes, definitions and repeaters being expanded, outermost first. */
  private final ArrayDeque<Construct> constructs = new ArrayDeque<>();

  private int includeDepth;

  /** What is being expanded, for the message when the budget runs out. */
  private record Construct(String file, int line, String name, String text) {}

  Preprocessor(ParseOptions options, Diagnostics diags) {
    this.options = options;
    this.diags = diags;
    this.budget = new Budget(options.limits());
  }

  /** Whether a limit was reached: the lines stop there, and the file does not load. */
  boolean overBudget() {
    return budget.exceeded();
  }

  /** Reads a file (and what it includes) into logical lines. */
  List<Line> read(Path file, String displayName) {
    String text;
    try {
      text = readFile(file, false);
    } catch (IOException | SecurityException e) {
      diags.error(displayName, 0, "cannot read file: " + reason(e, file), "");
      return out;
    }
    if (text == null) {
      diags.error(
          displayName,
          0,
          "cannot read file: it is larger than " + budget.chargeInput(1, false),
          "");
      return out;
    }
    readText(text, displayName, file.toAbsolutePath().getParent());
    return out;
  }

  /**
   * The file's text, or null when it has more bytes than the budget has left. Reads at most one
   * byte past what is left, so a huge file, {@code /dev/zero} or a fifo cannot fill the heap.
   */
  private String readFile(Path file, boolean included) throws IOException {
    if (Files.isDirectory(file)) {
      throw new IOException("is a directory");
    }
    long left = budget.inputLeft();
    byte[] bytes;
    try (InputStream in = Files.newInputStream(file)) {
      bytes = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, left + 1));
    }
    if (budget.chargeInput(bytes.length, included) != null) {
      return null;
    }
    return decode(bytes);
  }

  /** Reads configuration text; {@code baseDir} anchors relative includes and {@code ${_PWD}}. */
  List<Line> readText(String text, String displayName, Path baseDir) {
    String[] physical = text.split("\n", -1);
    for (int i = 0; i < physical.length && !budget.exceeded(); i++) {
      String raw = stripCr(physical[i]);
      int lineNo = i + 1;
      if (tooLong(raw)) {
        diags.error(
            displayName,
            lineNo,
            "line longer than keepalived's limit of " + MAX_LINE_BYTES + " bytes",
            head(raw));
        continue;
      }
      String t = decomment(raw, displayName, lineNo);
      if (t == null || t.isEmpty()) {
        continue;
      }
      t = conditional(t);
      if (t == null || t.isEmpty()) {
        continue;
      }
      Matcher def = t.charAt(0) == '$' ? DEFINITION.matcher(t) : null;
      if (def != null && def.matches()) {
        String name = def.group(1);
        String value = def.group(2);
        List<String> lines = new ArrayList<>();
        if (value.endsWith("\\")) {
          lines.add(value.substring(0, value.length() - 1).strip());
          while (i + 1 < physical.length) {
            i++;
            String next = decomment(stripCr(physical[i]), displayName, i + 1);
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
        continue;
      }
      expand(t, displayName, lineNo, baseDir, 0);
    }
    return out;
  }

  /** More than keepalived's MAXBUF in UTF-8 (counted only when it could be). */
  private static boolean tooLong(String s) {
    return s.length() > MAX_LINE_BYTES / 3
        && s.getBytes(StandardCharsets.UTF_8).length > MAX_LINE_BYTES;
  }

  private static String stripCr(String s) {
    return s.endsWith("\r") ? s.substring(0, s.length() - 1) : s;
  }

  private static String decode(byte[] bytes) {
    try {
      return StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPLACE)
          .onUnmappableCharacter(CodingErrorAction.REPLACE)
          .decode(ByteBuffer.wrap(bytes))
          .toString();
    } catch (java.nio.charset.CharacterCodingException e) {
      return new String(bytes, StandardCharsets.ISO_8859_1);
    }
  }

  /**
   * keepalived's decomment: leading blanks go, {@code #} or {@code !} outside double quotes ends
   * the line, {@code \#}/{@code \!} are literal, trailing blanks go. Returns null after reporting
   * an unterminated quote (keepalived 2.2.7 crashes on one; we say where it is).
   */
  String decomment(String raw, String file, int lineNo) {
    StringBuilder sb = new StringBuilder(raw.length());
    boolean inQuote = false;
    int i = 0;
    while (i < raw.length() && isBlank(raw.charAt(i))) {
      i++;
    }
    for (; i < raw.length(); i++) {
      char c = raw.charAt(i);
      if (c == '"') {
        inQuote = !inQuote;
      } else if (!inQuote && (c == '#' || c == '!')) {
        break;
      } else if (!inQuote
          && c == '\\'
          && i + 1 < raw.length()
          && (raw.charAt(i + 1) == '#' || raw.charAt(i + 1) == '!')) {
        sb.append(raw.charAt(++i));
        continue;
      }
      sb.append(c);
    }
    if (inQuote) {
      diags.error(file, lineNo, "unterminated quoted string", raw);
      return null;
    }
    int end = sb.length();
    while (end > 0 && isBlank(sb.charAt(end - 1))) {
      end--;
    }
    return sb.substring(0, end);
  }

  static boolean isBlank(char c) {
    return c == ' ' || c == '\t' || c == '\f' || c == '\u000b' || c == '\r' || c == '\n';
  }

  /** {@code @ID rest} keeps rest only on the host whose config id is ID; {@code @^ID} elsewhere. */
  private String conditional(String t) {
    while (t.startsWith("@")) {
      int sp = 1;
      while (sp < t.length() && !isBlank(t.charAt(sp))) {
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
    if (budget.exceeded()) {
      return;
    }
    if (depth > MAX_EXPANSION_DEPTH) {
      diags.error(file, lineNo, "repeaters or definitions nested too deeply", t);
      return;
    }
    if (t.startsWith("~SEQ") || t.startsWith("~LST")) {
      repeat(t, file, lineNo, baseDir, depth);
      return;
    }
    substitute(t, file, lineNo, 0, l -> expanded(l, t, file, lineNo, baseDir, depth));
  }

  /** One line that substitution produced from {@code t}. */
  private void expanded(String l, String t, String file, int lineNo, Path baseDir, int depth) {
    if (budget.exceeded()) {
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
      if (d.startsWith("~SEQ") || d.startsWith("~LST")) {
        expand(d, file, lineNo, baseDir, depth + 1);
        return;
      }
    }
    if (tooLong(d)) {
      diags.error(
          file, lineNo, "line longer than " + MAX_LINE_BYTES + " bytes after expansion", head(d));
      return;
    }
    // Only a bare first word counts, as in keepalived: a quoted "include" is a value.
    if (d.startsWith("include") && isInclude(d)) {
      include(Tokenizer.tokens(d).toArray(String[]::new), d, file, lineNo, baseDir);
      return;
    }
    splitBraces(d, file, lineNo);
  }

  static boolean isInclude(String line) {
    int end = 0;
    while (end < line.length() && !isBlank(line.charAt(end)) && line.charAt(end) != '"') {
      end++;
    }
    return INCLUDE.matcher(line.substring(0, end)).matches();
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
    if (s.isEmpty() || over(budget.chargeWords(words(s)), file, lineNo, s)) {
      return;
    }
    out.add(new Line(file, lineNo, s));
  }

  /** Blank-separated words, as the block tree will hold them (quotes do not matter here). */
  private static int words(String s) {
    int n = 0;
    boolean in = false;
    for (int i = 0; i < s.length(); i++) {
      boolean blank = isBlank(s.charAt(i));
      if (!blank && !in) {
        n++;
      }
      in = !blank;
    }
    return n;
  }

  /**
   * True when {@code limit} (a {@link Budget} answer) says the budget ran out; the first time, one
   * error names the outermost construct being expanded (the line the operator wrote) and the limit,
   * or the current line when nothing is being expanded.
   */
  private boolean over(String limit, String file, int lineNo, String text) {
    if (limit == null) {
      return false;
    }
    if (!budgetReported) {
      budgetReported = true;
      Construct c =
          constructs.isEmpty()
              ? new Construct(file, lineNo, "the configuration", text)
              : constructs.getFirst();
      diags.error(
          c.file(),
          c.line(),
          c.name() + " goes past " + limit + " (see Limits in docs/config.md)",
          c.text());
    }
    return true;
  }

  private boolean budgetReported;

  /** Runs {@code body} with {@code c} as the innermost construct being expanded. */
  private void within(Construct c, Runnable body) {
    constructs.addLast(c);
    try {
      body.run();
    } finally {
      constructs.removeLast();
    }
  }

  // --- $NAME substitution --------------------------------------------------------------------

  /**
   * Replaces {@code $NAME} and {@code ${NAME}}; a multi-line definition used alone on a line
   * becomes several lines. Returns null after reporting an error.
   */
  private boolean substitute(String t, String file, int lineNo, int depth, Consumer<String> sink) {
    if (t.indexOf('$') < 0) {
      return produced(t, file, lineNo, sink);
    }
    if (depth > MAX_EXPANSION_DEPTH) {
      diags.error(
          file,
          lineNo,
          "definition expands into itself (more than " + MAX_EXPANSION_DEPTH + " levels)",
          t);
      return false;
    }
    String trimmed = t.strip();
    Matcher alone = ALONE.matcher(trimmed);
    if (alone.matches()) {
      List<String> def = definitions.get(alone.group(1));
      if (def != null && def.size() > 1 && (trimmed.charAt(1) != '{' || trimmed.endsWith("}"))) {
        // A line of the definition may itself be a multi-line definition used alone, which
        // keepalived expands into lines too rather than joining them into one. Lines go to the
        // sink one by one as they are produced (and charged): nothing holds a definition's
        // expansion, which may stand for billions of lines.
        boolean outermost = constructs.isEmpty();
        if (outermost) {
          constructs.addLast(new Construct(file, lineNo, "$" + alone.group(1), t));
        }
        try {
          for (String l : def) {
            if (!substitute(l, file, lineNo, depth + 1, sink) || budget.exceeded()) {
              return false;
            }
          }
        } finally {
          if (outermost) {
            constructs.removeLast();
          }
        }
        return true;
      }
    }
    String s = replace(t, file, lineNo, depth);
    return s != null && produced(s, file, lineNo, sink);
  }

  /** Charges a produced line and hands it on; false when the budget ran out. */
  private boolean produced(String line, String file, int lineNo, Consumer<String> sink) {
    if (over(budget.chargeLine(line.length()), file, lineNo, line)) {
      return false;
    }
    sink.accept(line);
    return true;
  }

  private String replace(String t, String file, int lineNo, int depth) {
    if (depth > MAX_EXPANSION_DEPTH) {
      diags.error(
          file,
          lineNo,
          "definition expands into itself (more than " + MAX_EXPANSION_DEPTH + " levels)",
          t);
      return null;
    }
    StringBuilder sb = new StringBuilder();
    int i = 0;
    while (i < t.length()) {
      char c = t.charAt(i);
      if (sb.length() > 4 * MAX_LINE_BYTES) {
        diags.error(
            file, lineNo, "line longer than " + MAX_LINE_BYTES + " bytes after expansion", head(t));
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
        && (Character.isLetterOrDigit(t.charAt(j)) && t.charAt(j) < 128 || t.charAt(j) == '_')) {
      j++;
    }
    String name = t.substring(i + 1, j);
    boolean boundary =
        j == t.length() || isBlank(t.charAt(j)) || t.charAt(j) == ',' || t.charAt(j) == ')';
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

  private String builtinOrDefinition(String[] parts, String file) {
    String name = parts[0];
    switch (name) {
      case "_PWD":
        return currentDir(file);
      case "_INSTANCE":
        return options.configId();
      case "_HASH":
        return "#";
      case "_BANG":
        return "!";
      case "_ENV":
        return parts.length > 1 ? options.environment().getOrDefault(parts[1], "") : "";
      case "_RANDOM":
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
      default:
        List<String> def = definitions.get(name);
        return def == null ? null : String.join(" ", def);
    }
  }

  private final Map<String, String> dirs = new HashMap<>();

  private String currentDir(String file) {
    return dirs.getOrDefault(file, ".");
  }

  // --- ~SEQ / ~LST ----------------------------------------------------------------------------

  private void repeat(String t, String file, int lineNo, Path baseDir, int depth) {
    boolean seq = t.startsWith("~SEQ");
    boolean hex = t.startsWith("~SEQx");
    int open = t.indexOf('(');
    String keyword = t.substring(0, open < 0 ? Math.min(t.length(), 5) : open);
    boolean known = keyword.equals("~SEQ") || keyword.equals("~SEQx") || keyword.equals("~LST");
    if (open < 0 || !known) {
      diags.error(file, lineNo, "expected ~SEQ(...), ~SEQx(...) or ~LST(...)", t);
      return;
    }
    int close = matchingParen(t, open);
    if (close < 0) {
      diags.error(file, lineNo, "missing ')' in " + keyword, t);
      return;
    }
    String args = t.substring(open + 1, close);
    String rest = t.substring(close + 1).strip();
    if (rest.isEmpty()) {
      diags.warn(file, lineNo, keyword + " with nothing to repeat", t);
      return;
    }
    Construct at = new Construct(file, lineNo, keyword + "(" + args + ")", t);
    if (seq) {
      Sequence s = sequence(keyword, args, file, lineNo, t);
      if (s != null) {
        within(at, () -> repeatSequence(s, hex, rest, at, baseDir, depth));
      }
    } else {
      List<Map<String, String>> rows = listRows(args, file, lineNo, t);
      if (rows != null) {
        within(at, () -> repeatRows(rows, rest, at, baseDir, depth));
      }
    }
  }

  /** A ~SEQ's variable and the values it takes, from start by step up to and including end. */
  private record Sequence(String var, long start, long step, long end) {}

  /** {@code (var, [start,] [step,] end)}, keepalived's defaults filled in; null after reporting. */
  private Sequence sequence(String keyword, String args, String file, int lineNo, String t) {
    String[] a = args.split(",", -1);
    if (a.length < 2 || a.length > 4 || !NAME.matcher(a[0].strip()).matches()) {
      diags.error(file, lineNo, keyword + " takes (var, [start,] [step,] end)", t);
      return null;
    }
    long start;
    long step;
    long end;
    try {
      long[] n = new long[a.length - 1];
      for (int k = 1; k < a.length; k++) {
        n[k - 1] = Long.decode(a[k].strip());
      }
      end = n[n.length - 1];
      start = n.length >= 2 ? n[0] : (end >= 0 ? 1 : -1);
      step = n.length == 3 ? n[1] : (end >= start ? 1 : -1);
    } catch (NumberFormatException e) {
      diags.error(file, lineNo, keyword + " needs integer start, step and end", t);
      return null;
    }
    if (step == 0 || (step > 0 && end < start) || (step < 0 && end > start)) {
      diags.error(file, lineNo, keyword + " never reaches its end (step " + step + ")", t);
      return null;
    }
    return new Sequence(a[0].strip(), start, step, end);
  }

  private void repeatSequence(
      Sequence s, boolean hex, String rest, Construct at, Path baseDir, int depth) {
    long by = s.step();
    for (long v = s.start(); by > 0 ? v <= s.end() : v >= s.end(); v += by) {
      String value = hex ? Long.toHexString(v) : Long.toString(v);
      // Each round costs the text it repeats, so rounds that produce nothing (or only an
      // error) still end, and cost what they handle.
      if (over(budget.chargeLine(rest.length()), at.file(), at.line(), at.text())) {
        return;
      }
      withDefinitions(Map.of(s.var(), value), rest, at.file(), at.line(), baseDir, depth);
      if (budget.exceeded() || v + by < v == by > 0) {
        return; // budget spent, or the next value would overflow
      }
    }
  }

  private void repeatRows(
      List<Map<String, String>> rows, String rest, Construct at, Path baseDir, int depth) {
    for (Map<String, String> row : rows) {
      if (over(budget.chargeLine(rest.length()), at.file(), at.line(), at.text())) {
        return;
      }
      withDefinitions(row, rest, at.file(), at.line(), baseDir, depth);
      if (budget.exceeded()) {
        return;
      }
    }
  }

  private void withDefinitions(
      Map<String, String> vars, String rest, String file, int lineNo, Path baseDir, int depth) {
    Map<String, List<String>> saved = new HashMap<>();
    vars.forEach((k, v) -> saved.put(k, definitions.put(k, List.of(v))));
    expand(rest, file, lineNo, baseDir, depth + 1);
    saved.forEach(
        (k, v) -> {
          if (v == null) {
            definitions.remove(k);
          } else {
            definitions.put(k, v);
          }
        });
  }

  private static int matchingParen(String t, int open) {
    int level = 0;
    for (int i = open; i < t.length(); i++) {
      if (t.charAt(i) == '(') {
        level++;
      } else if (t.charAt(i) == ')' && --level == 0) {
        return i;
      }
    }
    return -1;
  }

  /** {@code var, v1, v2} or {@code {a,b}, {1,2}, {3,4}}. */
  private List<Map<String, String>> listRows(String args, String file, int lineNo, String t) {
    List<List<String>> groups = new ArrayList<>();
    String s = args.strip();
    if (s.startsWith("{")) {
      int i = 0;
      while (i < s.length()) {
        while (i < s.length() && (isBlank(s.charAt(i)) || s.charAt(i) == ',')) {
          i++;
        }
        if (i >= s.length()) {
          break;
        }
        if (s.charAt(i) != '{') {
          diags.error(file, lineNo, "~LST with {...} groups needs every value in {...}", t);
          return null;
        }
        int close = s.indexOf('}', i);
        if (close < 0) {
          diags.error(file, lineNo, "missing '}' in ~LST", t);
          return null;
        }
        groups.add(splitList(s.substring(i + 1, close)));
        i = close + 1;
      }
    } else {
      List<String> all = splitList(s);
      groups.add(List.of(all.get(0)));
      for (String v : all.subList(1, all.size())) {
        groups.add(List.of(v));
      }
    }
    if (groups.size() < 2) {
      diags.error(file, lineNo, "~LST needs a variable and at least one value", t);
      return null;
    }
    List<String> vars = groups.get(0);
    for (String v : vars) {
      if (!NAME.matcher(v).matches()) {
        diags.error(file, lineNo, "bad ~LST variable name '" + v + "'", t);
        return null;
      }
    }
    List<Map<String, String>> rows = new ArrayList<>();
    for (List<String> g : groups.subList(1, groups.size())) {
      if (g.size() != vars.size()) {
        diags.error(file, lineNo, "~LST value group " + g + " does not match variables " + vars, t);
        return null;
      }
      Map<String, String> row = new HashMap<>();
      for (int k = 0; k < vars.size(); k++) {
        row.put(vars.get(k), g.get(k));
      }
      rows.add(row);
    }
    return rows;
  }

  private static List<String> splitList(String s) {
    List<String> r = new ArrayList<>();
    for (String p : s.split(",", -1)) {
      r.add(p.strip());
    }
    return r;
  }

  // --- include ---------------------------------------------------------------------------------

  private void include(String[] words, String text, String file, int lineNo, Path baseDir) {
    if (words.length < 2) {
      diags.error(file, lineNo, "include needs a file name or pattern", text);
      return;
    }
    if (includeDepth >= MAX_INCLUDE_DEPTH) {
      diags.error(
          file,
          lineNo,
          "includes nested more than " + MAX_INCLUDE_DEPTH + " deep (does a file include itself?)",
          text);
      return;
    }
    for (int w = 1; w < words.length; w++) {
      if (!includePattern(words[w], text, file, lineNo, baseDir)) {
        return;
      }
    }
  }

  /** The files one include pattern matches, in order; false when reading must stop. */
  private boolean includePattern(
      String pattern, String text, String file, int lineNo, Path baseDir) {
    List<Path> matches;
    try {
      matches = glob(baseDir, pattern);
    } catch (InvalidPathException
        | IOException
        | SecurityException
        | java.util.regex.PatternSyntaxException e) {
      diags.error(file, lineNo, "bad include pattern '" + pattern + "': " + reason(e, null), text);
      return true;
    }
    if (matches.isEmpty()) {
      diags.error(file, lineNo, "include: no file matches '" + pattern + "'", text);
      return true;
    }
    for (Path p : matches) {
      if (!Files.isRegularFile(p)) {
        diags.error(file, lineNo, "include: '" + p + "' is not a regular file", text);
        continue;
      }
      if (!includeFile(p, pattern, text, file, lineNo)) {
        return false;
      }
    }
    return true;
  }

  /** Reads one included file in place; false when the budget is spent. */
  private boolean includeFile(Path p, String pattern, String text, String file, int lineNo) {
    String shown = displayName(p);
    Construct here = new Construct(file, lineNo, "include " + pattern, text);
    String content;
    try {
      constructs.addLast(here);
      content = readFile(p, true);
      if (content == null) {
        over(budget.chargeInput(0, true), file, lineNo, text);
        return false;
      }
    } catch (IOException | SecurityException e) {
      diags.error(file, lineNo, "include: cannot read '" + p + "': " + reason(e, p), text);
      return true;
    } finally {
      constructs.removeLast();
    }
    Path dir = p.toAbsolutePath().getParent();
    dirs.put(shown, dir.toString());
    includeDepth++;
    try {
      within(here, () -> readText(content, shown, dir));
    } finally {
      includeDepth--;
    }
    return !budget.exceeded();
  }

  private static String displayName(Path p) {
    Path cwd = Path.of("").toAbsolutePath();
    Path abs = p.toAbsolutePath().normalize();
    return abs.startsWith(cwd) ? cwd.relativize(abs).toString() : abs.toString();
  }

  /** glob(3) with braces, relative to the including file's directory, results sorted. */
  static List<Path> glob(Path baseDir, String pattern) throws IOException {
    Path base = baseDir == null ? Path.of("").toAbsolutePath() : baseDir;
    Path pat = Path.of(pattern);
    Path root = pat.isAbsolute() ? pat.getRoot() : base;
    List<Path> current = List.of(root);
    for (Path component : pat) {
      String c = component.toString();
      List<Path> next = new ArrayList<>();
      boolean wild =
          c.indexOf('*') >= 0 || c.indexOf('?') >= 0 || c.indexOf('[') >= 0 || c.indexOf('{') >= 0;
      for (Path dir : current) {
        if (!wild) {
          Path p = dir.resolve(c);
          if (Files.exists(p)) {
            next.add(p);
          }
          continue;
        }
        if (!Files.isDirectory(dir)) {
          continue;
        }
        PathMatcher m = dir.getFileSystem().getPathMatcher("glob:" + c);
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
          for (Path p : ds) {
            String n = p.getFileName().toString();
            if (m.matches(p.getFileName()) && (!n.startsWith(".") || c.startsWith("."))) {
              next.add(p);
            }
          }
        }
      }
      next.sort(null);
      current = next;
      if (current.isEmpty()) {
        break;
      }
    }
    return current;
  }

  static String reason(Exception e, Path file) {
    return FileErrors.why(e);
  }

  private static String head(String s) {
    return s.length() > 80 ? s.substring(0, 77) + "..." : s;
  }

  void registerTopDir(String displayName, Path dir) {
    if (dir != null) {
      dirs.put(displayName, dir.toString());
    }
  }
}
