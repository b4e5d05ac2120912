package io.fairway.cli;

import java.io.IOException;
import java.io.Reader;
import org.jspecify.annotations.Nullable;

/**
 * The lines of {@code fairway pick --keys}, each at most {@link #MAX_KEY} characters: a longer line
 * is refused as soon as it passes the bound, so one huge line costs bounded memory instead of an
 * {@code OutOfMemoryError}. Line ends as {@link java.io.BufferedReader#readLine()}: LF, CR or CRLF.
 */
final class KeyLines {
  /** The longest key: far beyond any URL, cookie or header value a director hashes. */
  static final int MAX_KEY = 64 * 1024;

  /** A line longer than {@link #MAX_KEY}. */
  static final class TooLong extends IOException {
    TooLong(long line) {
      super("line " + line + " is longer than " + MAX_KEY + " characters; a key is at most that");
    }
  }

  private final Reader in;
  private final StringBuilder line = new StringBuilder();
  private long number;
  private boolean afterCr;

  KeyLines(Reader in) {
    this.in = in;
  }

  /**
   * The next line without its end, or null at the end of the input.
   *
   * @throws TooLong the line passed {@link #MAX_KEY} (the message names its number)
   */
  @Nullable String next() throws IOException {
    line.setLength(0);
    int c;
    boolean any = false;
    while ((c = in.read()) >= 0) {
      if (afterCr) {
        afterCr = false;
        if (c == '\n') {
          continue;
        }
      }
      any = true;
      if (c == '\n' || c == '\r') {
        afterCr = c == '\r';
        number++;
        return line.toString();
      }
      if (line.length() == MAX_KEY) {
        throw new TooLong(number + 1);
      }
      line.append((char) c);
    }
    if (!any) {
      return null;
    }
    number++;
    return line.toString();
  }
}
