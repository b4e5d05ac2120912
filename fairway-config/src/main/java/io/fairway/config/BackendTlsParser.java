package io.fairway.config;

import io.fairway.config.model.BackendTls;
import io.fairway.config.model.LbKind;
import io.fairway.config.tls.PemFiles;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Parses a real server's {@code tls { verify CA_FILE sni NAME }} (a Fairway extension:
 * re-encryption to the backend). The CA file is read here, so that a file that cannot verify
 * anything is an error at its line when the configuration is read, as a listener's certificates are
 * ({@link TlsParser}).
 */
final class BackendTlsParser {
  static final Set<String> KEYWORDS = Set.of("verify", "sni");

  private BackendTlsParser() {}

  static Optional<BackendTls> parse(Node block, Values v) {
    if (!v.block(block)) {
      return Optional.empty();
    }
    if (block.argc() > 0) {
      v.error(block, "'tls' takes no arguments before its { } block");
    }
    String verify = null;
    String digest = null;
    Optional<String> sni = Optional.empty();
    boolean failed = false;
    for (Node c : block.block()) {
      // Pairs, so that the block's one-line form reads too: tls { verify CA  sni NAME }.
      if (!KEYWORDS.contains(c.keyword())) {
        v.unknown(c, KEYWORDS, "tls");
        continue;
      }
      if (c.argc() % 2 == 0) {
        v.error(c, "tls: expected 'verify CA_FILE' and 'sni NAME', each with its value");
        failed = true;
        continue;
      }
      for (int i = 0; i <= c.argc(); i += 2) {
        String k = i == 0 ? c.keyword() : c.arg(i);
        String value = c.arg(i + 1);
        switch (k) {
          case "verify" -> {
            try {
              PemFiles.certificates(Path.of(value)); // at least one, or why not
              verify = value;
              digest = PemFiles.digest(PemFiles.read(Path.of(value)));
            } catch (PemFiles.PemException e) {
              v.error(c, "verify: " + e.getMessage());
              failed = true;
            }
          }
          case "sni" -> sni = Optional.of(value);
          default -> {
            v.error(c, "tls: unknown '" + k + "' (known: sni, verify)");
            failed = true;
          }
        }
      }
    }
    if (verify == null) {
      if (!failed) {
        // An unverified backend connection is what re-encryption is meant to avoid.
        v.error(
            block, "tls: needs 'verify CA_FILE' (the CA the server's certificate must chain to)");
      }
      return Optional.empty();
    }
    return Optional.of(
        new BackendTls(
            Values.loc(block),
            verify,
            sni,
            Objects.requireNonNull(digest, "a readable verify file has a digest")));
  }

  /** The userspace data plane re-encrypts; the kernel's IPVS forwards packets as they are. */
  static void checkPlane(Node block, LbKind m, Values v) {
    if (m != LbKind.HTTP && m != LbKind.PROXY) {
      v.error(block, "tls needs lb_kind HTTP or PROXY (the userspace data plane), not " + m);
    }
  }
}
