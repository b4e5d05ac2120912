package io.fairway.config.model;

import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * One {@code url { }} of an HTTP_GET/SSL_GET checker.
 *
 * @param path the request path ({@code path}, required)
 * @param digest lower-case hex MD5 of the body ({@code digest}), if the body must match
 * @param statusCodes accepted status codes; {@link StatusRange#DEFAULT} when none is written
 * @param virtualhost the effective Host header: url, else checker, else real server, else virtual
 *     server {@code virtualhost}; empty means {@code IP:PORT}
 * @param regex a regular expression the body must match ({@code regex}), if any
 * @param regexNoMatch true if the body must NOT match the regex
 * @param regexOptions keepalived's {@code regex_options}, all {@link RegexOption#supported()}
 * @param regexMinOffset the match may start no earlier than this byte of the body ({@code
 *     regex_min_offset}, 0 = from the start)
 * @param regexMaxOffset the match must start at or before this byte of the body ({@code
 *     regex_max_offset}), empty for no limit
 */
public record UrlCheck(
    String path,
    Optional<String> digest,
    List<StatusRange> statusCodes,
    Optional<String> virtualhost,
    Optional<String> regex,
    boolean regexNoMatch,
    Set<RegexOption> regexOptions,
    long regexMinOffset,
    OptionalLong regexMaxOffset) {
  public UrlCheck {
    statusCodes = List.copyOf(statusCodes);
    regexOptions =
        regexOptions.isEmpty()
            ? Set.of()
            : Collections.unmodifiableSet(EnumSet.copyOf(regexOptions));
  }

  /** A url without regex offsets or options. */
  public UrlCheck(
      String path,
      Optional<String> digest,
      List<StatusRange> statusCodes,
      Optional<String> virtualhost,
      Optional<String> regex,
      boolean regexNoMatch) {
    this(
        path,
        digest,
        statusCodes,
        virtualhost,
        regex,
        regexNoMatch,
        Set.of(),
        0,
        OptionalLong.empty());
  }

  /** True if {@code status} is accepted. */
  public boolean accepts(int status) {
    for (StatusRange r : statusCodes) {
      if (r.contains(status)) {
        return true;
      }
    }
    return false;
  }
}
