package io.fairway.config.model;

import java.util.Locale;
import java.util.Optional;

/**
 * How packets reach a real server ({@code lb_kind}/{@code lvs_method}). NAT, DR and TUN are the
 * kernel's IPVS methods; PROXY and HTTP are Fairway's userspace data plane.
 *
 * <p>Not the table's {@code ForwardingMethod}: that is the kernel's per-destination value (MASQ,
 * DROUTE, TUNNEL, ...), which has no userspace planes, while this also chooses the data plane. The
 * plan maps one onto the other (PROXY and HTTP connect to the real server as NAT does).
 */
public enum LbKind {
  /** IPVS masquerading (destination NAT). */
  NAT,
  /** IPVS direct routing (MAC rewrite). */
  DR,
  /** IPVS IP-in-IP (or GUE/GRE) tunnelling. */
  TUN,
  /** Fairway userspace TCP proxy. */
  PROXY,
  /** Fairway userspace HTTP proxy. */
  HTTP;

  /** True for the methods the kernel's IPVS implements. */
  public boolean isKernel() {
    return this == NAT || this == DR || this == TUN;
  }

  /** Looks a method up, case-insensitively as keepalived does. */
  public static Optional<LbKind> byKeyword(String keyword) {
    try {
      return Optional.of(valueOf(keyword.toUpperCase(Locale.ROOT)));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }
}
