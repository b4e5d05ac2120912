package io.fairway.check.spec;

import io.fairway.config.model.StatusRange;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One {@code url { }} block of an HTTP_GET/SSL_GET checker.
 *
 * @param path request path, e.g. {@code /health}
 * @param digest lower-case hex MD5 of the response body, or {@code null} to not check the body
 * @param statusCodes accepted statuses; empty means keepalived's default 200-299
 * @param virtualHost Host header for this url, or {@code null} to inherit the checker's
 * @param regex a regular expression the body must (or must not) match, or {@code null}
 */
public record UrlSpec(
    String path,
    @Nullable String digest,
    List<StatusRange> statusCodes,
    @Nullable String virtualHost,
    @Nullable Regex regex) {

  /**
   * keepalived's url {@code regex} with its options, in java.util.regex terms.
   *
   * @param pattern the expression
   * @param flags {@link java.util.regex.Pattern} flags from {@code regex_options}
   * @param noMatch {@code regex_no_match}: the check fails when the body matches
   * @param minOffset the match may start no earlier than this offset into the body
   * @param maxOffset the match must start at or before this offset, or -1 for no limit
   * @param utf decode the body as UTF-8 (offsets then count UTF-16 chars); otherwise bytes, as
   *     PCRE2
   * @param firstLine the match must start at or before the first newline after {@code minOffset}
   */
  public record Regex(
      String pattern,
      int flags,
      boolean noMatch,
      long minOffset,
      long maxOffset,
      boolean utf,
      boolean firstLine) {
    public Regex {
      Objects.requireNonNull(pattern, "pattern");
      java.util.regex.Pattern.compile(
          pattern, flags); // fails here, at load, not at the first check
      if (minOffset < 0 || (maxOffset >= 0 && maxOffset < minOffset)) {
        throw new IllegalArgumentException(
            "regex offsets must satisfy 0 <= min <= max, got " + minOffset + ".." + maxOffset);
      }
    }

    public static Regex of(String pattern) {
      return new Regex(pattern, 0, false, 0, -1, false, false);
    }
  }

  public UrlSpec(
      String path,
      @Nullable String digest,
      List<StatusRange> statusCodes,
      @Nullable String virtualHost) {
    this(path, digest, statusCodes, virtualHost, null);
  }

  public UrlSpec {
    Objects.requireNonNull(path, "path");
    if (!path.startsWith("/")) {
      throw new IllegalArgumentException("url path must start with '/', got " + path);
    }
    if (digest != null) {
      digest = digest.toLowerCase(Locale.ROOT);
      if (!digest.matches("[0-9a-f]{32}")) {
        throw new IllegalArgumentException("digest must be 32 hex digits (MD5), got " + digest);
      }
    }
    statusCodes =
        statusCodes == null || statusCodes.isEmpty()
            ? List.of(StatusRange.DEFAULT)
            : List.copyOf(statusCodes);
  }

  public static UrlSpec path(String path) {
    return new UrlSpec(path, null, List.of(), null);
  }

  public boolean accepts(int status) {
    return statusCodes.stream().anyMatch(r -> r.contains(status));
  }
}
