package io.fairway.config;

import io.fairway.config.model.LbKind;
import io.fairway.config.model.TlsSettings;
import io.fairway.config.tls.PemFiles;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Parses a virtual server's {@code tls { }} block (a Fairway extension). Every certificate and key
 * is read and checked here, so that a file that cannot serve is an error at its line when the
 * configuration is read: {@code check-config} says so, and a reload is refused with the running
 * certificates still serving.
 */
final class TlsParser {
  static final Set<String> KEYWORDS =
      Set.of("certificate", "protocols", "alpn", "ticket_keys", "handshake_timeout");
  static final Set<String> PROTOCOLS = Set.of("TLSv1.2", "TLSv1.3");
  private static final Set<String> OLD_PROTOCOLS = Set.of("SSLv2", "SSLv3", "TLSv1", "TLSv1.1");
  static final Set<String> ALPN = Set.of("h2", "http/1.1");

  /** Size of one session ticket key: 16 bytes name, 16 HMAC, 16 AES. */
  static final int TICKET_KEY_BYTES = 48;

  private TlsParser() {}

  static TlsSettings parse(Node block, Values v) {
    if (block.argc() > 0) {
      v.error(block, "'tls' takes no arguments before its { } block");
    }
    List<TlsSettings.Certificate> certs = new ArrayList<>();
    List<String> protocols = TlsSettings.DEFAULT_PROTOCOLS;
    List<String> alpn = List.of();
    Optional<TlsSettings.TicketKeys> tickets = Optional.empty();
    Optional<java.time.Duration> handshake = Optional.empty();
    for (Node c : block.block()) {
      switch (c.keyword()) {
        case "certificate" -> certificate(c, v).ifPresent(certs::add);
        case "protocols" -> protocols = words(c, v, PROTOCOLS, protocols);
        case "alpn" -> alpn = words(c, v, ALPN, alpn);
        case "ticket_keys" -> tickets = ticketKeys(c, v);
        case "handshake_timeout" -> {
          if (v.args(c, 1, 1)) {
            handshake = Optional.ofNullable(v.timer(c, 1, false));
          }
        }
        default -> v.unknown(c, KEYWORDS, "tls");
      }
    }
    if (certs.isEmpty()) {
      v.error(block, "tls: needs at least one 'certificate CRT KEY'");
    }
    return new TlsSettings(certs, protocols, alpn, tickets, handshake);
  }

  /**
   * A virtual server's {@code alpn} line outside its {@code tls} block: the protocols of a plain
   * HTTP listener, where {@code h2} is h2c (prior knowledge and {@code Upgrade: h2c}).
   */
  static List<String> alpn(Node c, Values v) {
    return words(c, v, ALPN, List.of());
  }

  /**
   * The settings of a plain listener whose virtual server names {@code alpn} outside a {@code tls}
   * block: no certificate, the protocols as written. {@code alpn} there needs {@code lb_kind HTTP}
   * and no {@code tls} block (whose own {@code alpn} line says it for TLS).
   */
  static @Nullable TlsSettings plain(
      Node alpnNode, List<String> alpn, @Nullable Node tlsNode, LbKind m, Values v) {
    if (tlsNode != null) {
      v.error(
          alpnNode,
          "alpn: this virtual_server has a tls block (line "
              + tlsNode.line.line()
              + "); write alpn inside it");
      return null;
    }
    if (m != LbKind.HTTP) {
      v.error(alpnNode, "alpn outside a tls block (h2c) needs lb_kind HTTP, not " + m);
      return null;
    }
    return new TlsSettings(List.of(), TlsSettings.DEFAULT_PROTOCOLS, alpn, Optional.empty());
  }

  /** The userspace data plane terminates TLS; the kernel's IPVS cannot. */
  static void checkForwarding(Node block, LbKind m, Values v) {
    if (m != LbKind.HTTP && m != LbKind.PROXY) {
      v.error(block, "tls needs lb_kind HTTP or PROXY (the userspace data plane), not " + m);
    }
  }

  private static Optional<TlsSettings.Certificate> certificate(Node c, Values v) {
    if (!v.args(c, 2, 2)) {
      return Optional.empty();
    }
    Path chain = Path.of(c.arg(1));
    Path key = Path.of(c.arg(2));
    try {
      PemFiles.load(chain, key, Instant.now());
      String digest = PemFiles.digest(PemFiles.read(chain), PemFiles.read(key));
      return Optional.of(new TlsSettings.Certificate(Values.loc(c), c.arg(1), c.arg(2), digest));
    } catch (PemFiles.PemException e) {
      v.error(c, "certificate: " + e.getMessage());
      return Optional.empty();
    }
  }

  private static List<String> words(Node c, Values v, Set<String> known, List<String> before) {
    if (!v.args(c, 1, 8)) {
      return before;
    }
    LinkedHashSet<String> out = new LinkedHashSet<>();
    for (int i = 1; i <= c.argc(); i++) {
      String w = c.arg(i);
      if (known == PROTOCOLS && OLD_PROTOCOLS.contains(w)) {
        v.error(c, "protocols: " + w + " is refused; TLSv1.2 is the oldest offered");
        return before;
      }
      if (!known.contains(w)) {
        v.error(
            c,
            c.keyword()
                + ": unknown '"
                + w
                + "' (known: "
                + String.join(", ", sorted(known))
                + ")");
        return before;
      }
      out.add(w);
    }
    return List.copyOf(out);
  }

  private static List<String> sorted(Set<String> s) {
    return s.stream().sorted().toList();
  }

  private static Optional<TlsSettings.TicketKeys> ticketKeys(Node c, Values v) {
    if (!v.args(c, 1, 1)) {
      return Optional.empty();
    }
    try {
      byte[] keys = PemFiles.read(Path.of(c.arg(1)));
      if (keys.length == 0 || keys.length % TICKET_KEY_BYTES != 0) {
        v.error(
            c,
            "ticket_keys: "
                + c.arg(1)
                + ": "
                + keys.length
                + " bytes, not a multiple of "
                + TICKET_KEY_BYTES
                + " (make one with: openssl rand 48 > FILE)");
        return Optional.empty();
      }
      return Optional.of(
          new TlsSettings.TicketKeys(Values.loc(c), c.arg(1), PemFiles.digest(keys)));
    } catch (PemFiles.PemException e) {
      v.error(c, "ticket_keys: " + e.getMessage());
      return Optional.empty();
    }
  }
}
