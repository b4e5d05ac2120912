package io.fairway.config.model;

import java.util.Optional;

/**
 * IPVS service flags set with bare keywords in a virtual_server. {@code sh-*} and {@code mh-*} are
 * names for {@code flag-1}/{@code flag-2} that are only meaningful with that scheduler.
 */
public enum SchedulerFlag {
  FLAG_1("flag-1", 0x0008),
  FLAG_2("flag-2", 0x0010),
  FLAG_3("flag-3", 0x0020),
  SH_FALLBACK("sh-fallback", 0x0008),
  SH_PORT("sh-port", 0x0010),
  MH_FALLBACK("mh-fallback", 0x0008),
  MH_PORT("mh-port", 0x0010),
  /** One-packet scheduling (UDP only): {@code ops}. */
  OPS("ops", 0x0004);

  private final String keyword;
  private final int bits;

  SchedulerFlag(String keyword, int bits) {
    this.keyword = keyword;
    this.bits = bits;
  }

  public String keyword() {
    return keyword;
  }

  /** The IP_VS_SVC_F_* bit of this flag. */
  public int bits() {
    return bits;
  }

  public static Optional<SchedulerFlag> byKeyword(String keyword) {
    for (SchedulerFlag f : values()) {
      if (f.keyword.equals(keyword)) {
        return Optional.of(f);
      }
    }
    return Optional.empty();
  }
}
