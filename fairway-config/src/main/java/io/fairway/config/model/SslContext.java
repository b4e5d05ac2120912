package io.fairway.config.model;

import java.util.Optional;

/** The top-level {@code SSL { }} block used by SSL_GET checkers (client certificate and CA). */
public record SslContext(
    Optional<String> password,
    Optional<String> ca,
    Optional<String> certificate,
    Optional<String> key) {}
