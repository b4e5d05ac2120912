package io.fairway.config.model;

import java.util.Objects;
import java.util.Optional;

/**
 * How the userspace data plane talks to one real server (Fairway extensions; the kernel's IPVS has
 * no use for them): {@code max_conns}, {@code send_proxy}, {@code tls { }} and {@code http2}.
 * {@link #NONE} when none is written: no limit, plain TCP, HTTP/1.1.
 *
 * @param maxConns {@code max_conns}, its own or inherited from the virtual server: the userspace
 *     data plane gives this server at most this many connections (L4) or requests (HTTP) at once,
 *     counting only live ones. 0 = none
 * @param proxyProtocol {@code send_proxy}: the PROXY header written on each new connection to this
 *     server; {@link ProxyProtocol#NONE} = none
 * @param tls {@code tls { }}: re-encrypt to this server, verified; empty = plain TCP
 * @param http2 {@code http2}: speak HTTP/2 to this server (h2 over its {@code tls { }}, h2c by
 *     prior knowledge without), one multiplexed connection per event loop; false = HTTP/1.1
 */
public record BackendSettings(
    int maxConns, ProxyProtocol proxyProtocol, Optional<BackendTls> tls, boolean http2) {
  /** No limit, no PROXY header, plain TCP, HTTP/1.1. */
  public static final BackendSettings NONE =
      new BackendSettings(0, ProxyProtocol.NONE, Optional.empty(), false);

  public BackendSettings {
    Objects.requireNonNull(proxyProtocol, "proxyProtocol");
    Objects.requireNonNull(tls, "tls");
    if (maxConns < 0) {
      throw new IllegalArgumentException("max_conns must be >= 0: " + maxConns);
    }
  }
}
