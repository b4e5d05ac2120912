package io.fairway.config;

import org.jspecify.annotations.Nullable;

/**
 * Counts what the preprocessor produces against {@link ParseLimits}, as it produces it: the first
 * charge past a limit returns the limit's description and every later one fails too, so expansion
 * stops where it is instead of after the text exists.
 */
final class Budget {
  /** What the shortest line costs. */
  static final int LINE_MIN = 24;

  private final ParseLimits limits;
  private long inputBytes;
  private int includes;
  private long expandedBytes;
  private long words;
  private @Nullable String exceeded;

  Budget(ParseLimits limits) {
    this.limits = limits;
  }

  /** Null if the file of {@code bytes} bytes may still be read, else the limit it breaks. */
  @Nullable String chargeInput(long bytes, boolean included) {
    if (exceeded == null && included && ++includes > limits.includes()) {
      exceeded = "the limit of " + limits.includes() + " included files";
    }
    if (exceeded == null && (inputBytes += bytes) > limits.inputBytes()) {
      exceeded = "the limit of " + size(limits.inputBytes()) + " read from files";
    }
    return exceeded;
  }

  /** The most bytes a file may still have. */
  long inputLeft() {
    return Math.max(0, limits.inputBytes() - inputBytes);
  }

  /**
   * Null if a produced line of {@code chars} characters (plus a newline, and at least {@link
   * #LINE_MIN} bytes) fits, else the limit it breaks.
   */
  @Nullable String chargeLine(int chars) {
    // Every line counts, an empty one too, at least LINE_MIN bytes: handling a line costs
    // about that much whatever its length, and expansion that produces nothing must still end
    // soon (2^30 empty lines stop after 700,000 of them, not 16 million).
    if (exceeded == null
        && (expandedBytes += Math.max(LINE_MIN, chars + 1L)) > limits.expandedBytes()) {
      exceeded = "the limit of " + size(limits.expandedBytes()) + " of expanded text";
    }
    return exceeded;
  }

  /** Null if {@code n} more words fit, else the limit they break. */
  @Nullable String chargeWords(int n) {
    if (exceeded == null && (words += n) > limits.words()) {
      exceeded = "the limit of " + String.format("%,d", limits.words()) + " words";
    }
    return exceeded;
  }

  /** Whether a limit was broken. */
  boolean exceeded() {
    return exceeded != null;
  }

  static String size(long bytes) {
    if (bytes % (1L << 20) == 0) {
      return (bytes >> 20) + " MiB";
    }
    if (bytes % 1024 == 0) {
      return (bytes >> 10) + " KiB";
    }
    return bytes + " bytes";
  }
}
