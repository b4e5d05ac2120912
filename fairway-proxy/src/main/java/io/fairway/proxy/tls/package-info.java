/**
 * TLS termination on the userspace data plane's listeners: one {@code SslContext} per configured
 * certificate, chosen by SNI, built off the event loops when a plan is loaded and swapped in whole,
 * so a reload with renewed certificates serves them to new handshakes while open connections keep
 * the context they started with.
 */
@NullMarked
package io.fairway.proxy.tls;

import org.jspecify.annotations.NullMarked;
