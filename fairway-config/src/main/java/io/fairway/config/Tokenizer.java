package io.fairway.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/** keepalived's two ways of splitting a logical line into words. */
final class Tokenizer {
  private Tokenizer() {}

  /**
   * Ordinary keywords: blanks separate words; a word starting with {@code "} runs to the next
   * {@code "} (quotes dropped, blanks kept); a {@code "} inside an unquoted word ends it.
   */
  static List<String> tokens(String line) {
    List<String> words = new ArrayList<>();
    int i = 0;
    int n = line.length();
    while (i < n) {
      while (i < n && LineText.isBlank(line.charAt(i))) {
        i++;
      }
      if (i >= n) {
        break;
      }
      if (line.charAt(i) == '"') {
        int close = line.indexOf('"', i + 1);
        if (close < 0) {
          close = n;
        }
        words.add(line.substring(i + 1, close));
        i = Math.min(n, close + 1);
      } else {
        int j = i;
        while (j < n && !LineText.isBlank(line.charAt(j)) && line.charAt(j) != '"') {
          j++;
        }
        words.add(line.substring(i, j));
        i = j;
      }
    }
    return words;
  }

  /**
   * Script keywords ({@code notify_up}, {@code misc_path}, ...): both quote characters group,
   * adjacent quoted and unquoted pieces join into one word, no escapes.
   */
  static List<String> quotedWords(String line) {
    return words(line, false);
  }

  /**
   * Splits a script command into argv as keepalived's notify code does: quotes group, and backslash
   * escapes ({@code \n \t \xHH \NNN}, {@code \C} = C) are processed.
   */
  static List<String> argv(String command) {
    return words(command, true);
  }

  /**
   * Both quote characters group and adjacent pieces join; with {@code escapes}, backslashes too.
   */
  private static List<String> words(String text, boolean escapes) {
    List<String> words = new ArrayList<>();
    StringBuilder cur = null;
    char quote = 0;
    int n = text.length();
    for (int i = 0; i < n; i++) {
      char c = text.charAt(i);
      if (escapes && c == '\\' && i + 1 < n && quote != '\'') {
        if (cur == null) {
          cur = new StringBuilder();
        }
        i = escape(text, i + 1, cur);
        continue;
      }
      if (quote != 0) {
        if (c == quote) {
          quote = 0;
        } else {
          Objects.requireNonNull(cur, "an opening quote starts a word").append(c);
        }
      } else if (c == '"' || c == '\'') {
        if (cur == null) {
          cur = new StringBuilder();
        }
        quote = c;
      } else if (LineText.isBlank(c)) {
        if (cur != null) {
          words.add(cur.toString());
          cur = null;
        }
      } else {
        if (cur == null) {
          cur = new StringBuilder();
        }
        cur.append(c);
      }
    }
    if (cur != null) {
      words.add(cur.toString());
    }
    return words;
  }

  /** Appends the escape starting at {@code i} (after the backslash); returns its last index. */
  private static int escape(String s, int i, StringBuilder out) {
    char c = s.charAt(i);
    switch (c) {
      case 'a' -> {
        out.append('\u0007');
        return i;
      }
      case 'b' -> {
        out.append('\b');
        return i;
      }
      case 'E' -> {
        out.append('\u001b');
        return i;
      }
      case 'f' -> {
        out.append('\f');
        return i;
      }
      case 'n' -> {
        out.append('\n');
        return i;
      }
      case 'r' -> {
        out.append('\r');
        return i;
      }
      case 't' -> {
        out.append('\t');
        return i;
      }
      case 'v' -> {
        out.append('\u000b');
        return i;
      }
      case 'x' -> {
        int j = i + 1;
        int v = 0;
        while (j < s.length() && j < i + 3 && Character.digit(s.charAt(j), 16) >= 0) {
          v = v * 16 + Character.digit(s.charAt(j), 16);
          j++;
        }
        out.append((char) v);
        return j - 1;
      }
      case 'c' -> {
        if (i + 1 < s.length()) {
          out.append((char) (s.charAt(i + 1) & 0x1f));
          return i + 1;
        }
        out.append(c);
        return i;
      }
      default -> {
        if (c >= '0' && c <= '7') {
          int j = i;
          int v = 0;
          while (j < s.length() && j < i + 3 && s.charAt(j) >= '0' && s.charAt(j) <= '7') {
            v = v * 8 + (s.charAt(j) - '0');
            j++;
          }
          out.append((char) (v & 0xff));
          return j - 1;
        }
        out.append(c);
        return i;
      }
    }
  }
}
