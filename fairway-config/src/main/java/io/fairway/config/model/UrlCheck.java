package io.fairway.config.model;

import java.util.List;
import java.util.Optional;

/**
 * One {@code url { }} of an HTTP_GET/SSL_GET checker.
 *
 * @param path the request path ({@code path}, required)
 * @param digest lower-case hex MD5 of the body ({@code digest}), if the body must match
 * @param statusCodes accepted status codes; {@link StatusRange#DEFAULT} when none is written
 * @param virtualhost the effective Host header: url, else checker, else real server, else
 *     virtual server {@code virtualhost}; empty means {@code IP:PORT}
 * @param regex a regular expression the body must match ({@code regex}), if any
 * @param regexNoMatch true if the body must NOT match the regex
 */
public record UrlCheck(
    String path,
    Optional<String> digest,
    List<StatusRange> statusCodes,
    Optional<String> virtualhost,
    Optional<String> regex,
    boolean regexNoMatch) {
  public UrlCheck {
    statusCodes = List.copyOf(statusCodes);
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
