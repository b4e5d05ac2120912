package io.fairway.config.model;

import java.util.Optional;

/**
 * A virtual server's {@code lb_algo}: either one of the kernel's IPVS schedulers (which keepalived
 * accepts and which Fairway's userspace data plane also implements) or one of Varnish 7's directors
 * (a Fairway extension, userspace data plane only).
 */
public enum Scheduler {
  RR("rr", Kind.KERNEL),
  WRR("wrr", Kind.KERNEL),
  LC("lc", Kind.KERNEL),
  WLC("wlc", Kind.KERNEL),
  LBLC("lblc", Kind.KERNEL),
  LBLCR("lblcr", Kind.KERNEL),
  SH("sh", Kind.KERNEL),
  DH("dh", Kind.KERNEL),
  MH("mh", Kind.KERNEL),
  SED("sed", Kind.KERNEL),
  NQ("nq", Kind.KERNEL),
  FO("fo", Kind.KERNEL),
  OVF("ovf", Kind.KERNEL),
  TWOS("twos", Kind.KERNEL),
  ROUND_ROBIN("round_robin", Kind.VARNISH),
  FALLBACK("fallback", Kind.VARNISH),
  RANDOM("random", Kind.VARNISH),
  HASH("hash", Kind.VARNISH),
  SHARD("shard", Kind.VARNISH);

  /** Where the algorithm comes from. */
  public enum Kind {
    /** A Linux IPVS scheduler: usable with the kernel table and with the userspace proxy. */
    KERNEL,
    /** A Varnish 7 director: userspace data plane only ({@code lb_kind PROXY|HTTP}). */
    VARNISH
  }

  private final String keyword;
  private final Kind kind;

  Scheduler(String keyword, Kind kind) {
    this.keyword = keyword;
    this.kind = kind;
  }

  /** The name as written after {@code lb_algo}, e.g. {@code wlc} or {@code shard}. */
  public String keyword() {
    return keyword;
  }

  public Kind kind() {
    return kind;
  }

  /** True for the Linux IPVS schedulers. */
  public boolean isKernel() {
    return kind == Kind.KERNEL;
  }

  /** Weights must be integers for kernel schedulers; Varnish directors accept decimals. */
  public boolean allowsDecimalWeights() {
    return kind == Kind.VARNISH;
  }

  /** Looks a scheduler up by its keyword (exact, case-sensitive, as keepalived). */
  public static Optional<Scheduler> byKeyword(String keyword) {
    for (Scheduler s : values()) {
      if (s.keyword.equals(keyword)) {
        return Optional.of(s);
      }
    }
    return Optional.empty();
  }
}
