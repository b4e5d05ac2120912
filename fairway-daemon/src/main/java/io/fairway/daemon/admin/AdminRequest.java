package io.fairway.daemon.admin;

import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One request as the routes see it.
 *
 * @param method {@code GET}, {@code POST}, ...
 * @param path the path's segments, each URL-decoded ({@code /api/v1/services/a%3A80} is {@code
 *     [api, v1, services, a:80]})
 * @param query query parameters
 * @param body the request body (at most {@link AdminHttpServer#MAX_BODY} bytes)
 * @param authorized whether it carried the admin token (the header: a session cookie never counts)
 * @param readsNeedToken whether this listener's reads need the token or a session (non-loopback)
 */
// A byte[] body is carried, never compared: reference equality of the record is never asked for.
@SuppressWarnings("ArrayRecordComponent")
public record AdminRequest(
    String method,
    List<String> path,
    Map<String, List<String>> query,
    byte[] body,
    boolean authorized,
    boolean readsNeedToken) {
  public AdminRequest {
    path = List.copyOf(path);
    query = Map.copyOf(query);
  }

  /** On a listener whose reads are open (loopback). */
  public AdminRequest(
      String method,
      List<String> path,
      Map<String, List<String>> query,
      byte[] body,
      boolean authorized) {
    this(method, path, query, body, authorized, false);
  }

  /** A query parameter's first value, or null. */
  public @Nullable String param(String name) {
    List<String> v = query.get(name);
    return v == null || v.isEmpty() ? null : v.get(0);
  }
}
