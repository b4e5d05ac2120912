package io.fairway.check.spec;

/** An inclusive range of HTTP status codes, keepalived's {@code status_code A-B}. */
public record StatusRange(int from, int to) {
  /** keepalived's default when a url has no {@code status_code}: any 2xx. */
  public static final StatusRange SUCCESS = new StatusRange(200, 299);

  public StatusRange {
    if (from < 100 || to > 599 || from > to) {
      throw new IllegalArgumentException(
          "status_code range must be within 100-599, got " + from + "-" + to);
    }
  }

  public boolean contains(int status) {
    return status >= from && status <= to;
  }

  @Override
  public String toString() {
    return from == to ? Integer.toString(from) : from + "-" + to;
  }
}
