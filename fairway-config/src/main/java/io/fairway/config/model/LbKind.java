package io.fairway.config.model;

import java.util.Locale;
import java.util.Optional;

/**
 * How packets reach a real server ({@code lb_kind}/{@code lvs_method}). NAT, DR and TUN are the
 * kernel's IPVS methods; PROXY and HTTP are Fairway's userspace data plane.
 */
public enum ForwardingMethod {
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
  public static Optional<ForwardingMethod> byKeyword(String keyword) {
    try {
      return Optional.of(valueOf(keyword.toUpperCase(Locale.ROOT)));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }
}
