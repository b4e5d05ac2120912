package io.fairway.check.checker;

import io.fairway.check.spec.UrlSpec;
import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * keepalived's url {@code regex} over a response body with java.util.regex.
 *
 * <p>As PCRE2 without {@code utf}, the body is matched byte for byte (ISO-8859-1), so offsets are
 * byte offsets. {@code regex_min_offset} and {@code regex_max_offset} bound where the match may
 * <em>start</em>; the matched text may run past the max. Text before the min offset is still
 * visible to look-behind and is not a line start for {@code ^}, as with PCRE2's start offset.
 *
 * <p>A backtracking pattern can take exponential time on a hostile or merely unlucky body, and the
 * event loop that runs it serves every other checker: reads of the body are therefore counted and a
 * match that needs more than {@link #budget(int)} of them fails the check with a reason instead of
 * stalling the loop.
 */
final class BodyRegex {
  /**
   * Character reads always allowed: about 10-50 ms of matching, far more than a sane pattern needs.
   */
  static final long BASE_STEPS = 1_000_000L;

  /**
   * Further reads per body character: a linear scan reads each about once, a little backtracking a
   * few times.
   */
  static final long STEPS_PER_CHAR = 8;

  /** How many character reads a match over {@code length} characters may take. */
  static long budget(int length) {
    return BASE_STEPS + STEPS_PER_CHAR * length;
  }

  private final UrlSpec.Regex spec;
  private final Pattern pattern;

  BodyRegex(UrlSpec.Regex spec) {
    this.spec = spec;
    this.pattern = Pattern.compile(spec.pattern(), spec.flags());
  }

  /** {@code null} if the body passes, else why it does not. */
  @Nullable String check(ByteBuf body) {
    String text = body.toString(spec.utf() ? StandardCharsets.UTF_8 : StandardCharsets.ISO_8859_1);
    Boolean found = find(text);
    if (found == null) {
      return "regex '" + spec.pattern() + "' gave up after " + budget(text.length()) + " steps";
    }
    if (found == spec.noMatch()) {
      return found
          ? "body matches regex '" + spec.pattern() + "' (regex_no_match)"
          : "regex '" + spec.pattern() + "' not found" + where();
    }
    return null;
  }

  private String where() {
    if (spec.minOffset() == 0 && spec.maxOffset() < 0) {
      return "";
    }
    return " starting at offset "
        + spec.minOffset()
        + ".."
        + (spec.maxOffset() < 0 ? "end" : spec.maxOffset());
  }

  /** Whether a match starts within the offsets; {@code null} if the step budget ran out first. */
  @Nullable Boolean find(String text) {
    int len = text.length();
    if (spec.minOffset() > len) {
      return false;
    }
    int from = (int) spec.minOffset();
    long last = spec.maxOffset() < 0 ? Long.MAX_VALUE : spec.maxOffset();
    if (spec.firstLine()) {
      int nl = text.indexOf('\n', from);
      if (nl >= 0) {
        last = Math.min(last, nl);
      }
    }
    Matcher m = pattern.matcher(new Budget(text, budget(len)));
    m.useTransparentBounds(true).useAnchoringBounds(false).region(from, len);
    try {
      // find() returns the leftmost match, so if it starts too late no acceptable one exists.
      return m.find() && m.start() <= last;
    } catch (Budget.Exhausted e) {
      return null;
    }
  }

  /** The body as the matcher sees it, counting every character read. */
  private static final class Budget implements CharSequence {
    static final class Exhausted extends RuntimeException {
      Exhausted() {
        super(null, null, false, false);
      }
    }

    private final String text;
    private final long max;
    private long steps;

    Budget(String text, long max) {
      this.text = text;
      this.max = max;
    }

    @Override
    public char charAt(int index) {
      if (++steps > max) {
        throw new Exhausted();
      }
      return text.charAt(index);
    }

    @Override
    public int length() {
      return text.length();
    }

    @Override
    public CharSequence subSequence(int start, int end) {
      return text.subSequence(start, end);
    }

    @Override
    public String toString() {
      return text;
    }
  }
}
