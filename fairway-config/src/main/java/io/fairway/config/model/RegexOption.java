package io.fairway.config.model;

import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * keepalived's {@code regex_options} (PCRE2 compile options) and what each becomes in {@link
 * java.util.regex}. Options whose meaning Java cannot reproduce are refused at load rather than
 * silently dropped: a health check that matches differently from what the operator tested with
 * {@code pcre2test} would pass or fail servers for the wrong reason.
 */
public enum RegexOption {
  CASELESS(Pattern.CASE_INSENSITIVE),
  DOTALL(Pattern.DOTALL),
  EXTENDED(Pattern.COMMENTS),
  MULTILINE(Pattern.MULTILINE),
  /** The body is decoded as UTF-8 and the pattern matches characters, not bytes. */
  UTF(Pattern.UNICODE_CASE),
  /** Unicode properties for {@code \d \w \s} and POSIX classes. */
  UCP(Pattern.UNICODE_CHARACTER_CLASS | Pattern.UNICODE_CASE),
  /** The match must start at or before the first newline after the start offset. */
  FIRSTLINE(0),
  /** Java's default already: no Unicode properties unless asked. */
  NEVER_UCP(0),
  /** Java's default here already: the body is matched as bytes (ISO-8859-1) unless {@code utf}. */
  NEVER_UTF(0),
  /** Only changes capture numbering; a match/no-match check never reads captures. */
  NO_AUTO_CAPTURE(0),
  /** PCRE2 optimisation switches: they change speed, not which text matches. */
  NO_AUTO_POSSESS(0),
  NO_DOTSTAR_ANCHOR(0),
  NO_START_OPTIMIZE(0),
  // keepalived knows these, Java has no equivalent: refused with the reason.
  ALLOW_EMPTY_CLASS(-1),
  ALT_BSUX(-1),
  AUTO_CALLOUT(-1),
  DOLLAR_ENDONLY(-1),
  DUPNAMES(-1),
  MATCH_UNSET_BACKREF(-1),
  UNGREEDY(-1),
  NEVER_BACKSLASH_C(-1),
  ALT_CIRCUMFLEX(-1),
  ALT_VERBNAMES(-1),
  USE_OFFSET_LIMIT(-1);

  private final int javaFlags;

  RegexOption(int javaFlags) {
    this.javaFlags = javaFlags;
  }

  /** The keyword as written in keepalived.conf, e.g. {@code caseless}. */
  public String keyword() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** True if Fairway can honour this option with java.util.regex. */
  public boolean supported() {
    return javaFlags >= 0;
  }

  /** The {@link Pattern} flags for this option (0 for options handled outside the pattern). */
  public int javaFlags() {
    return Math.max(0, javaFlags);
  }

  /** The option named {@code keyword} in keepalived.conf, if keepalived knows it. */
  public static Optional<RegexOption> of(String keyword) {
    for (RegexOption o : values()) {
      if (o.keyword().equals(keyword)) {
        return Optional.of(o);
      }
    }
    return Optional.empty();
  }
}
