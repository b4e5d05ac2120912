package io.fairway.config;

import java.nio.ByteBuffer;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The text rules of one configuration line as keepalived's lib/parser.c applies them: what a blank
 * is, where a comment starts, how long a line may be, what makes a line an {@code include}.
 *
 * <p>Why apart from the {@link Preprocessor}: the tokenizer and the dump writer follow the same
 * rules (a word the writer prints must read back as one word), and the preprocessor's expansion
 * reads better without the character loops.
 */
final class LineText {
  /** keepalived's MAXBUF is 1024 bytes including the terminating NUL. */
  static final int MAX_LINE_BYTES = 1023;

  private static final Pattern INCLUDE = Pattern.compile("include[rmwba]?");

  private LineText() {}

  static boolean isBlank(char c) {
    return c == ' ' || c == '\t' || c == '\f' || c == '\u000b' || c == '\r' || c == '\n';
  }

  /** Whether the line's bare first word is an include keyword: a quoted "include" is a value. */
  static boolean isInclude(String line) {
    int end = 0;
    while (end < line.length() && !isBlank(line.charAt(end)) && line.charAt(end) != '"') {
      end++;
    }
    return INCLUDE.matcher(line.substring(0, end)).matches();
  }

  /** More than keepalived's MAXBUF in UTF-8 (counted only when it could be). */
  static boolean tooLong(String s) {
    return s.length() > MAX_LINE_BYTES / 3
        && s.getBytes(StandardCharsets.UTF_8).length > MAX_LINE_BYTES;
  }

  static String stripCr(String s) {
    return s.endsWith("\r") ? s.substring(0, s.length() - 1) : s;
  }

  /** The start of a long line, for a message. */
  static String head(String s) {
    return s.length() > 80 ? s.substring(0, 77) + "..." : s;
  }

  static String decode(byte[] bytes) {
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

  /** Blank-separated words, as the block tree will hold them (quotes do not matter here). */
  static int words(String s) {
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
   * keepalived's decomment: leading blanks go, {@code #} or {@code !} outside double quotes ends
   * the line, {@code \#}/{@code \!} are literal, trailing blanks go. Returns null after reporting
   * an unterminated quote (keepalived 2.2.7 crashes on one; we say where it is).
   */
  static @Nullable String decomment(String raw, String file, int lineNo, Diagnostics diags) {
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
}
