package io.fairway.proxy.http;

import io.fairway.plan.Selection;
import io.fairway.proxy.table.ProxyService;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * The shard {@code alt} an HTTP request asks for in the service's {@code alt_header}, as a VCL's
 * {@code shard.backend(alt=std.integer(req.http.X-Alt))}: a request's alt overrides the associated
 * shard_param's. A missing header, or a value that is not a non-negative decimal integer, asks for
 * nothing, and the shard uses its own default.
 */
final class RequestAlt {
  /** No alt asked for. */
  static final int NONE = ProxyService.NO_ALT;

  /** Larger values ask for the last alternative anyway (a shard clamps to its member count). */
  static final int MAX = 65_535;

  private RequestAlt() {}

  /** The alt the request asks for, or {@link #NONE}. */
  static int of(@Nullable Selection selection, HttpHead request) {
    if (selection == null || selection.altHeader().isEmpty()) {
      return NONE;
    }
    String v = request.header(selection.altHeader().get().toLowerCase(Locale.ROOT));
    return parse(v);
  }

  static int parse(@Nullable String v) {
    if (v == null) {
      return NONE;
    }
    String t = v.trim();
    if (t.isEmpty()) {
      return NONE;
    }
    long n = 0;
    for (int i = 0; i < t.length(); i++) {
      char c = t.charAt(i);
      if (c < '0' || c > '9') {
        return NONE;
      }
      if (n < MAX) {
        n = n * 10 + (c - '0');
      }
    }
    return (int) Math.min(n, MAX);
  }
}
