package io.fairway.config.model;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Settings of the userspace data plane for one virtual server (Fairway extensions; the kernel has
 * no use for them): its timeouts, and whether the HTTP proxy also sends an RFC 7239 {@code
 * Forwarded} header.
 *
 * @param timeouts {@code proxy_timeouts { }}; each one absent uses the data plane's default
 * @param forwarded {@code http_forwarded}: add {@code Forwarded: for=...;proto=http} too
 * @param tls {@code tls { }}: TLS termination on the listener; {@link TlsSettings#NONE} without
 * @param proxyProtocol {@code proxy_protocol accept}: client connections begin with a PROXY header
 */
public record ProxySettings(
    Timeouts timeouts, boolean forwarded, TlsSettings tls, ProxyProtocol proxyProtocol) {
  public static final ProxySettings DEFAULTS = new ProxySettings(Timeouts.NONE, false);

  public ProxySettings {
    Objects.requireNonNull(timeouts, "timeouts");
    tls = tls == null ? TlsSettings.NONE : tls;
    proxyProtocol = proxyProtocol == null ? ProxyProtocol.NONE : proxyProtocol;
  }

  /** Without TLS or PROXY protocol. */
  public ProxySettings(Timeouts timeouts, boolean forwarded) {
    this(timeouts, forwarded, TlsSettings.NONE, ProxyProtocol.NONE);
  }

  /** Without PROXY protocol. */
  public ProxySettings(Timeouts timeouts, boolean forwarded, TlsSettings tls) {
    this(timeouts, forwarded, tls, ProxyProtocol.NONE);
  }

  /** Without TLS. */
  public ProxySettings(Timeouts timeouts, boolean forwarded, ProxyProtocol proxyProtocol) {
    this(timeouts, forwarded, TlsSettings.NONE, proxyProtocol);
  }

  public ProxySettings withTls(TlsSettings t) {
    return new ProxySettings(timeouts, forwarded, t, proxyProtocol);
  }

  /**
   * The {@code proxy_timeouts} block, in the terms HAProxy and nginx users know.
   *
   * @param requestHead the whole request head must arrive within this (HAProxy {@code timeout
   *     http-request}, nginx {@code client_header_timeout})
   * @param requestBody a request body must arrive within this, extended by one second for every
   *     {@code requestBodyMinRate} bytes received (Apache {@code RequestReadTimeout
   *     body=N,MinRate=R})
   * @param requestBodyMinRate bytes per second a body must keep up to earn more time; 0 = none
   * @param connect a backend connect (HAProxy {@code timeout connect})
   * @param firstByte the backend's first response byte after the request went out (HAProxy {@code
   *     timeout server} before the response, nginx {@code proxy_read_timeout})
   * @param keepAlive an idle keep-alive client between requests (HAProxy {@code timeout
   *     http-keep-alive}, nginx {@code keepalive_timeout})
   * @param idle an L4 connection, or an HTTP exchange, without a byte either way (HAProxy {@code
   *     timeout client}/{@code server})
   * @param tunnel an upgraded (WebSocket) connection without a byte either way (HAProxy {@code
   *     timeout tunnel})
   */
  public record Timeouts(
      Optional<Duration> requestHead,
      Optional<Duration> requestBody,
      OptionalLong requestBodyMinRate,
      Optional<Duration> connect,
      Optional<Duration> firstByte,
      Optional<Duration> keepAlive,
      Optional<Duration> idle,
      Optional<Duration> tunnel) {
    public static final Timeouts NONE =
        new Timeouts(
            Optional.empty(),
            Optional.empty(),
            OptionalLong.empty(),
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            Optional.empty());
  }
}
