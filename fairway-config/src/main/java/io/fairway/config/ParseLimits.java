package io.fairway.config;

/**
 * How much text a configuration may make the parser hold, whatever it says. keepalived's
 * preprocessor multiplies text (includes, {@code $NAME} definitions used in definitions, {@code
 * ~SEQ} repeaters that nest): a one-line file can stand for billions of lines. The limits are
 * checked as the text grows, so a file past them costs at most about their size in memory, and ends
 * in one {@code FILE:LINE} error that names the construct and the limit.
 *
 * <p>The defaults hold twenty times the largest configuration we know of in production (10,000 real
 * servers: 1.6 MB, 80,000 lines, 200,000 words) and keep the parser's peak heap under about 200 MB
 * (measured in docs/config.md, "Limits").
 *
 * @param inputBytes bytes read from files: the file itself and everything it includes
 * @param includes files read through {@code include PATH} lines (an include that fans out re-reads
 *     files)
 * @param expandedBytes bytes of logical lines produced, one newline each, after definitions and
 *     repeaters: roughly the size of {@code check-config --dump}'s input if written out
 * @param words words (and braces) in the produced lines: what the block tree and model hold
 */
public record ParseLimits(long inputBytes, int includes, long expandedBytes, long words) {

  public ParseLimits {
    if (inputBytes <= 0 || includes < 0 || expandedBytes <= 0 || words <= 0) {
      throw new IllegalArgumentException(
          "limits must be positive: "
              + inputBytes
              + ", "
              + includes
              + ", "
              + expandedBytes
              + ", "
              + words);
    }
  }

  /** 16 MiB read, 10,000 included files, 16 MiB expanded, 1,000,000 words. */
  public static ParseLimits defaults() {
    return new ParseLimits(16L << 20, 10_000, 16L << 20, 1_000_000);
  }
}
