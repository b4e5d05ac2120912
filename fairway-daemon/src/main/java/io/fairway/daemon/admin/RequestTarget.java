package io.fairway.daemon.admin;

import io.netty.handler.codec.http.QueryStringDecoder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A request target as the routes see it: the path's non-empty segments, each percent-decoded, and
 * the query's parameters.
 *
 * @param path the decoded segments ({@code /api/v1/services/a%3A80} is {@code [api, v1, services,
 *     a:80]})
 * @param query the decoded query parameters
 */
public record RequestTarget(List<String> path, Map<String, List<String>> query) {
  public RequestTarget {
    path = List.copyOf(path);
    query = Map.copyOf(query);
  }

  /**
   * Decodes a request target.
   *
   * @throws IllegalArgumentException a malformed percent escape ({@code %zz}, a lone {@code %});
   *     one line saying so
   */
  public static RequestTarget parse(String uri) {
    try {
      QueryStringDecoder q = new QueryStringDecoder(uri);
      List<String> path = new ArrayList<>();
      for (String seg : q.rawPath().split("/")) {
        if (!seg.isEmpty()) {
          path.add(QueryStringDecoder.decodeComponent(seg));
        }
      }
      return new RequestTarget(path, q.parameters());
    } catch (IllegalArgumentException e) {
      String m = e.getMessage() == null ? "malformed" : e.getMessage();
      throw new IllegalArgumentException(
          "bad request target: "
              + m.lines().findFirst().orElse(m)
              + " (a '%' needs two hex digits)");
    }
  }
}
