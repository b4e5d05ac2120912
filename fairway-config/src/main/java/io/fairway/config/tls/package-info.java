/**
 * Reading the PEM files a {@code tls { }} block names, so that a missing, unreadable, expired or
 * mismatched certificate or key is a {@code FILE:LINE} error when the configuration is read (at
 * {@code check-config} and at every reload), before any data plane sees it. The data plane builds
 * its TLS contexts from what this package returns, so both read the files the same way.
 */
@NullMarked
package io.fairway.config.tls;

import org.jspecify.annotations.NullMarked;
