/**
 * The admin listener: the runtime API ({@code /api/v1}), health probes, Prometheus metrics, the
 * event stream and the status page, on one HTTP/1.1 port.
 *
 * <p>Why Netty's HTTP codec and not the JDK's {@code HttpServer}: the JDK server reads request
 * heads on a blocking dispatcher, so a handful of clients that send half a request stall everyone
 * behind them (issue #16 measured {@code fairway status} timing out). Netty is already the data
 * plane's library, reads heads without blocking, bounds them ({@link
 * io.fairway.daemon.admin.AdminHttpServer#MAX_BODY}), and lets a request head that does not arrive
 * in time be closed ({@link io.fairway.daemon.admin.RequestTimeout}). JSON goes through Jackson, so
 * no encoder is written by hand.
 *
 * <p>Security model: reads are open on loopback; every mutation is a {@code POST} carrying {@code
 * Authorization: Bearer TOKEN} compared in constant time ({@link
 * io.fairway.daemon.admin.AdminToken}). Cookies never authorise a change, so a page from another
 * origin cannot ride a browser's credentials, and a cross-origin script cannot set the header
 * without a CORS preflight this server never grants. A non-loopback listener requires a token file,
 * and then reads need the token too; since a browser's {@code EventSource} cannot send the header,
 * the status page trades the token for a short-lived read-only session cookie ({@link
 * io.fairway.daemon.admin.AdminSessions}: HttpOnly, SameSite=Strict, reads only).
 */
@NullMarked
package io.fairway.daemon.admin;

import org.jspecify.annotations.NullMarked;
