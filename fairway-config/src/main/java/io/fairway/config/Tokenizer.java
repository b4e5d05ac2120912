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
    int letter = letterEscape(c);
    if (letter >= 0) {
      out.append((char) letter);
      return i;
    }
    if (c == 'x') {
      return hexEscape(s, i, out);
    }
    if (c == 'c' && i + 1 < s.length()) {
      out.append((char) (s.charAt(i + 1) & 0x1f));
      return i + 1;
    }
    if (c >= '0' && c <= '7') {
      return octalEscape(s, i, out);
    }
    // \C stands for C, a trailing \c included.
    out.append(c);
    return i;
  }

  /** The character a one-letter escape ({@code \n}, {@code \t}, ...) stands for, -1 for others. */
  private static int letterEscape(char c) {
    return switch (c) {
      case 'a' -> '\u0007';
      case 'b' -> '\b';
      case 'E' -> '\u001b';
      case 'f' -> '\f';
      case 'n' -> '\n';
      case 'r' -> '\r';
      case 't' -> '\t';
      case 'v' -> '\u000b';
      default -> -1;
    };
  }

  /** {@code \xHH}, at most two hex digits (none gives NUL); {@code i} is at the x. */
  private static int hexEscape(String s, int i, StringBuilder out) {
    int j = i + 1;
    int v = 0;
    while (j < s.length() && j < i + 3 && Character.digit(s.charAt(j), 16) >= 0) {
      v = v * 16 + Character.digit(s.charAt(j), 16);
      j++;
    }
    out.append((char) v);
    return j - 1;
  }

  /**
   * {@code \NNN}, at most three octal digits, the value kept to a byte; {@code i} is at the first.
   */
  private static int octalEscape(String s, int i, StringBuilder out) {
    int j = i;
    int v = 0;
    while (j < s.length() && j < i + 3 && s.charAt(j) >= '0' && s.charAt(j) <= '7') {
      v = v * 8 + (s.charAt(j) - '0');
      j++;
    }
    out.append((char) (v & 0xff));
    return j - 1;
  }
}
