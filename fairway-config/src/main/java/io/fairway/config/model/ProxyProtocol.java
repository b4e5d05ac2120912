package io.fairway.config.model;

import org.jspecify.annotations.Nullable;

/**
 * The PROXY protocol (HAProxy's, v1 text or v2 binary) on one virtual server or real server, a
 * Fairway extension: how a load balancer in front tells Fairway who the client is, and how Fairway
 * tells a backend.
 *
 * @param accept {@code proxy_protocol accept} on a virtual server: every client connection must
 *     begin with a PROXY v1 or v2 header, and the client address it names is the one every later
 *     stage sees
 * @param send {@code send_proxy v1|v2} on a real server: each new connection to it begins with a
 *     header naming the client
 */
public record ProxyProtocol(boolean accept, Version send) {
  /** Neither accepts nor sends: what keepalived.conf without the keywords means. */
  public static final ProxyProtocol NONE = new ProxyProtocol(false, Version.NONE);

  /** What {@code send_proxy} writes to a backend. */
  public enum Version {
    NONE,
    V1,
    V2;

    /** As {@code send_proxy} spells it. */
    public String keyword() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  public ProxyProtocol {
    send = send == null ? Version.NONE : send;
  }

  public static ProxyProtocol sending(@Nullable Version v) {
    return new ProxyProtocol(false, v == null ? Version.NONE : v);
  }
}
