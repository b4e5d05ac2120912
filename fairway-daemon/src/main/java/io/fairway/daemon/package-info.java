/**
 * The running load balancer behind {@code fairway run}: configuration → check engine → applier →
 * table, plus reload, shutdown, drift repair and the admin endpoint {@code fairway status} reads.
 *
 * <p>What the operator relies on, and why each piece is here:
 *
 * <ul>
 *   <li><b>Reload by difference</b> ({@link io.fairway.daemon.Daemon#reload}). A SIGHUP must not
 *       drop connections to backends that did not change, so the table is diffed, never rebuilt. An
 *       invalid file is refused with one log line and the running configuration keeps working: a
 *       typo must not take a load balancer down.
 *   <li><b>Verdicts survive the reload</b> ({@code AlphaOverride}). The check engine restarts on a
 *       reload; a server that had failed restarts as alpha so it is not silently considered up, and
 *       one that was up restarts non-alpha so the reload does not take it out.
 *   <li><b>Shutdown removes what Fairway installed</b>, as keepalived does; {@code -I} leaves the
 *       table alone for an operator who restarts Fairway without interrupting traffic.
 *   <li><b>Drift repair</b>: keepalived never reads the table back, so an entry deleted with {@code
 *       ipvsadm} stays deleted. Fairway reads back every few seconds, logs each difference and
 *       converges.
 *   <li><b>Status with reasons</b> (the admin package's {@code AdminServer}): the table with each
 *       server's verdict and what its checker saw, on a loopback-only endpoint because it has no
 *       authentication.
 * </ul>
 *
 * <p>The admin and VRRP packages build on this one, never the reverse: what the core publishes or
 * keeps for them (the event stream and its kinds, the last check attempts, the JSON mapper and
 * durations as the API writes them) lives here, and the admin listener is wired around a daemon
 * from outside ({@code io.fairway.cli}).
 */
@NullMarked
package io.fairway.daemon;

import org.jspecify.annotations.NullMarked;
