package io.fairway.config.model;

/** An inclusive range of HTTP status codes ({@code status_code 200-299}). */
public record StatusRange(int from, int to) {
  /** keepalived's default when a url has no {@code status_code}: any 2xx. */
  public static final StatusRange DEFAULT = new StatusRange(200, 299);

  public boolean contains(int status) {
    return status >= from && status <= to;
  }

  @Override
  public String toString() {
    return from == to ? Integer.toString(from) : from + "-" + to;
  }
}
