package io.fairway.config.model;

/** IPv4 or IPv6, as keepalived's {@code inet}/{@code inet6}. */
public enum AddressFamily {
  INET("inet"),
  INET6("inet6");

  private final String keyword;

  AddressFamily(String keyword) {
    this.keyword = keyword;
  }

  /** {@code inet} or {@code inet6}. */
  public String keyword() {
    return keyword;
  }

  /** The family of an address. */
  public static AddressFamily of(java.net.InetAddress address) {
    return address instanceof java.net.Inet6Address ? INET6 : INET;
  }
}
