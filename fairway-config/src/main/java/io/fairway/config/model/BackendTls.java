package io.fairway.config.model;

import io.fairway.config.model.base.Location;
import java.util.Objects;
import java.util.Optional;

/**
 * A real server's {@code tls { }} block (a Fairway extension): the userspace data plane speaks TLS
 * to this server (re-encryption), and verifies it.
 *
 * @param location the block's line, for errors found when the CA file is read again
 * @param verify {@code verify CA_FILE}: the PEM certificates the server's chain must end at
 * @param sni {@code sni NAME}: the server name sent in the handshake and checked against the
 *     server's certificate; without it, nothing is sent and the certificate must name the server's
 *     IP address
 * @param digest a digest of the CA file's contents when the configuration was read: a changed file
 *     at the same path is a changed setting
 */
public record BackendTls(Location location, String verify, Optional<String> sni, String digest) {
  public BackendTls {
    Objects.requireNonNull(verify, "verify");
    Objects.requireNonNull(sni, "sni");
    Objects.requireNonNull(digest, "digest");
  }
}
