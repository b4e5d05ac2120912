package io.fairway.config;

import org.jspecify.annotations.Nullable;

/**
 * Makes text from a file safe to quote in a one-line message: characters a terminal does not show
 * (NUL and other controls, DEL, C1 controls, no-break and other odd spaces, zero-width and
 * direction marks, the BOM, line separators) become {@code \\uXXXX}, so {@code 'rr\u0000'} is not
 * printed as {@code 'rr'} next to "did you mean 'rr'?". A backslash stays as it is: keepalived
 * syntax is full of them and they are visible.
 */
public final class Printable {
  private Printable() {}

  /** {@code s} with every invisible character escaped; null stays null. */
  public static @Nullable String escape(@Nullable String s) {
    if (s == null) {
      return null;
    }
    StringBuilder sb = null;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (invisible(c)) {
        if (sb == null) {
          sb = new StringBuilder(s.length() + 16).append(s, 0, i);
        }
        sb.append(String.format("\\u%04x", (int) c));
      } else if (sb != null) {
        sb.append(c);
      }
    }
    return sb == null ? s : sb.toString();
  }

  /** Not shown, or shown as something it is not; a space and a tab are shown as blanks. */
  static boolean invisible(char c) {
    if (c == ' ' || c == '\t') {
      return false;
    }
    if (c < 0x20 || c == 0x7f || (c >= 0x80 && c <= 0x9f)) {
      return true;
    }
    switch (Character.getType(c)) {
      case Character.SPACE_SEPARATOR,
          Character.LINE_SEPARATOR,
          Character.PARAGRAPH_SEPARATOR,
          Character.FORMAT,
          Character.CONTROL,
          Character.UNASSIGNED,
          Character.PRIVATE_USE,
          Character.SURROGATE -> {
        // A surrogate pair is visible; a lone one (from a bad decode) is not, but pairs are
        // rare enough in keepalived.conf that showing both halves escaped is fine.
        return true;
      }
      default -> {
        return false;
      }
    }
  }
}
