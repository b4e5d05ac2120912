package io.fairway.proxy.http;

import org.jspecify.annotations.Nullable;

/**
 * gRPC's {@code grpc-timeout} request field: at most 8 digits and a unit (H M S m u n), the time
 * the client gives the whole call. The exchange takes it as its own deadline, so a call that cannot
 * finish in time is ended at the proxy too, not only at the client.
 */
final class GrpcTimeout {
  private GrpcTimeout() {}

  /** The timeout in nanoseconds, or 0 when absent or malformed (then it is ignored). */
  static long nanos(@Nullable String v) {
    if (v == null || v.length() < 2 || v.length() > 9) {
      return 0;
    }
    long n = 0;
    for (int i = 0; i < v.length() - 1; i++) {
      char c = v.charAt(i);
      if (c < '0' || c > '9') {
        return 0;
      }
      n = n * 10 + (c - '0');
    }
    long unit =
        switch (v.charAt(v.length() - 1)) {
          case 'H' -> 3_600_000_000_000L;
          case 'M' -> 60_000_000_000L;
          case 'S' -> 1_000_000_000L;
          case 'm' -> 1_000_000L;
          case 'u' -> 1_000L;
          case 'n' -> 1L;
          default -> 0L;
        };
    if (unit == 0) {
      return 0;
    }
    // A timeout of hours fits in a long of nanoseconds (99999999 H does not: clamp).
    return n > Long.MAX_VALUE / Math.max(1, unit) ? Long.MAX_VALUE / 4 : Math.max(1, n * unit);
  }
}
