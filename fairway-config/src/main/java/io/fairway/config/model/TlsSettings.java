package io.fairway.config.model;

import io.fairway.config.model.base.Location;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A virtual server's {@code tls { }} block (a Fairway extension): the userspace data plane
 * terminates TLS on the listener, for {@code lb_kind HTTP} and for L4 ({@code lb_kind PROXY}).
 *
 * @param certificates the {@code certificate CRT KEY} lines in file order; the first one is served
 *     to clients whose SNI names no other; empty means no TLS
 * @param protocols {@code protocols}: the TLS versions offered, as the JDK names them ({@code
 *     TLSv1.2}, {@code TLSv1.3})
 * @param alpn {@code alpn}: the protocols offered by ALPN as written; empty when not written, which
 *     is {@code h2 http/1.1} for HTTP and none for L4
 * @param ticketKeys {@code ticket_keys FILE}: 48-byte session ticket keys shared by several nodes
 * @param handshakeTimeout {@code handshake_timeout SECONDS}: how long a client has for its
 *     ClientHello, and then again for the rest of its handshake; empty when not written (the data
 *     plane's default)
 */
public record TlsSettings(
    List<Certificate> certificates,
    List<String> protocols,
    List<String> alpn,
    Optional<TicketKeys> ticketKeys,
    Optional<Duration> handshakeTimeout) {
  public static final List<String> DEFAULT_PROTOCOLS = List.of("TLSv1.2", "TLSv1.3");
  public static final List<String> DEFAULT_ALPN = List.of("h2", "http/1.1");

  /** No {@code tls} block: plain TCP. */
  public static final TlsSettings NONE =
      new TlsSettings(List.of(), DEFAULT_PROTOCOLS, List.of(), Optional.empty());

  public TlsSettings {
    certificates = List.copyOf(certificates);
    protocols = List.copyOf(protocols);
    alpn = List.copyOf(alpn);
    Objects.requireNonNull(ticketKeys, "ticketKeys");
    Objects.requireNonNull(handshakeTimeout, "handshakeTimeout");
  }

  /** Settings without {@code handshake_timeout}. */
  public TlsSettings(
      List<Certificate> certificates,
      List<String> protocols,
      List<String> alpn,
      Optional<TicketKeys> ticketKeys) {
    this(certificates, protocols, alpn, ticketKeys, Optional.empty());
  }

  /** Whether the listener terminates TLS. */
  public boolean enabled() {
    return !certificates.isEmpty();
  }

  /**
   * One {@code certificate} line.
   *
   * @param location its line, for errors found when the certificate is (re)loaded
   * @param chain the PEM file with the certificate and its chain
   * @param key the PEM file with its private key (PKCS#8, PKCS#1 or SEC1)
   * @param digest a digest of both files' contents when the configuration was read: a renewed
   *     certificate at the same paths is a changed setting, so a reload builds new contexts for it
   */
  public record Certificate(Location location, String chain, String key, String digest) {
    public Certificate {
      Objects.requireNonNull(chain, "chain");
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(digest, "digest");
    }
  }

  /**
   * The {@code ticket_keys} line.
   *
   * @param file a file of 48-byte keys (16 name, 16 HMAC, 16 AES, as nginx's {@code
   *     ssl_session_ticket_key}); the first encrypts new tickets, all decrypt
   * @param digest a digest of its contents when the configuration was read
   */
  public record TicketKeys(Location location, String file, String digest) {}
}
