package io.fairway.config;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * keepalived's repeaters: {@code ~SEQ(var, [start,] [step,] end) line}, {@code ~SEQx(...)} (the
 * values in hex) and {@code ~LST(var, v1, v2...) line} or {@code ~LST({a,b}, {1,2}...) line}, each
 * expanding the rest of the line once per value with the variable defined as that value.
 *
 * <p>Why apart: the argument syntax and its errors are a small language of their own; the expansion
 * itself is the preprocessor's, handed each round's line through {@link Expander}.
 */
final class Repeaters {
  private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

  /** Expands one line of a round, as the preprocessor expands any line. */
  @FunctionalInterface
  interface Expander {
    void expand(String t, String file, int lineNo, Path baseDir, int depth);
  }

  /** A ~SEQ's variable and the values it takes, from start by step up to and including end. */
  private record Sequence(String var, long start, long step, long end) {}

  private final Diagnostics diags;
  private final BudgetGuard guard;
  private final Definitions definitions;
  private final Expander expander;

  Repeaters(Diagnostics diags, BudgetGuard guard, Definitions definitions, Expander expander) {
    this.diags = diags;
    this.guard = guard;
    this.definitions = definitions;
    this.expander = expander;
  }

  /** Whether {@code t} is a repeater line. */
  static boolean isRepeater(String t) {
    return t.startsWith("~SEQ") || t.startsWith("~LST");
  }

  /** Expands the repeater line {@code t}, or reports why it is not one. */
  void repeat(String t, String file, int lineNo, Path baseDir, int depth) {
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
    BudgetGuard.Construct at =
        new BudgetGuard.Construct(file, lineNo, keyword + "(" + args + ")", t);
    if (seq) {
      Sequence s = sequence(keyword, args, file, lineNo, t);
      if (s != null) {
        guard.within(at, () -> repeatSequence(s, hex, rest, at, baseDir, depth));
      }
    } else {
      List<Map<String, String>> rows = listRows(args, file, lineNo, t);
      if (rows != null) {
        guard.within(at, () -> repeatRows(rows, rest, at, baseDir, depth));
      }
    }
  }

  /** {@code (var, [start,] [step,] end)}, keepalived's defaults filled in; null after reporting. */
  private @Nullable Sequence sequence(
      String keyword, String args, String file, int lineNo, String t) {
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
      Sequence s, boolean hex, String rest, BudgetGuard.Construct at, Path baseDir, int depth) {
    long by = s.step();
    for (long v = s.start(); by > 0 ? v <= s.end() : v >= s.end(); v += by) {
      String value = hex ? Long.toHexString(v) : Long.toString(v);
      // Each round costs the text it repeats, so rounds that produce nothing (or only an
      // error) still end, and cost what they handle.
      if (guard.over(guard.budget().chargeLine(rest.length()), at.file(), at.line(), at.text())) {
        return;
      }
      round(Map.of(s.var(), value), rest, at, baseDir, depth);
      if (guard.exceeded() || v + by < v == by > 0) {
        return; // budget spent, or the next value would overflow
      }
    }
  }

  private void repeatRows(
      List<Map<String, String>> rows,
      String rest,
      BudgetGuard.Construct at,
      Path baseDir,
      int depth) {
    for (Map<String, String> row : rows) {
      if (guard.over(guard.budget().chargeLine(rest.length()), at.file(), at.line(), at.text())) {
        return;
      }
      round(row, rest, at, baseDir, depth);
      if (guard.exceeded()) {
        return;
      }
    }
  }

  /** One round: {@code rest} expanded with the round's variables defined. */
  private void round(
      Map<String, String> vars, String rest, BudgetGuard.Construct at, Path baseDir, int depth) {
    definitions.with(vars, () -> expander.expand(rest, at.file(), at.line(), baseDir, depth + 1));
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
  private @Nullable List<Map<String, String>> listRows(
      String args, String file, int lineNo, String t) {
    List<List<String>> groups = listGroups(args.strip(), file, lineNo, t);
    if (groups == null) {
      return null;
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

  /** The variables' group, then each value group; null after reporting. */
  private @Nullable List<List<String>> listGroups(String s, String file, int lineNo, String t) {
    List<List<String>> groups = new ArrayList<>();
    if (!s.startsWith("{")) {
      for (String v : splitList(s)) {
        groups.add(List.of(v));
      }
      return groups;
    }
    int i = 0;
    while (i < s.length()) {
      while (i < s.length() && (LineText.isBlank(s.charAt(i)) || s.charAt(i) == ',')) {
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
    return groups;
  }

  private static List<String> splitList(String s) {
    List<String> r = new ArrayList<>();
    for (String p : s.split(",", -1)) {
      r.add(p.strip());
    }
    return r;
  }
}
