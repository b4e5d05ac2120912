/**
 * Test support shared by every module, in one place because a copy per module drifts: each module
 * reaches it in test scope (a test-jar of another module would pull that module's own test
 * dependencies and be reachable only downstream of it).
 *
 * <ul>
 *   <li>{@link io.fairway.testkit.ExternalPrograms}: a test that needs varnishd, keepalived, nginx
 *       or user-mode Linux skips without it on a developer's machine and fails under {@code
 *       CI=true}, where a missing program is a broken install ({@code .ci/no-silent-skips} keeps
 *       tests from going around it);
 *   <li>{@link io.fairway.testkit.FairwayProcess}: {@code fairway ...} as a child process, from the
 *       test classpath or an installed tree, with its log, signals and exit;
 *   <li>{@link io.fairway.testkit.Varnishd}: a real varnishd on loopback running a test's VCL, the
 *       oracle the Varnish directors (fairway-director) and the data plane (fairway-daemon) are
 *       compared with, started, awaited and stopped one way, its log in failure messages;
 *   <li>{@link io.fairway.testkit.FreePorts}: ports for programs a test starts, chosen below the
 *       kernel's ephemeral range, where another suite's outgoing connections cannot take them
 *       between the check and the program's bind;
 *   <li>{@link io.fairway.testkit.HttpBackend} and {@link io.fairway.testkit.EchoServer}: loopback
 *       backends that say which one answered (an HTTP body or a TCP greeting of their name), the
 *       ones most tests of the proxy and of {@code fairway run --userspace} need, so no module
 *       carries its own copy;
 *   <li>{@link io.fairway.testkit.LoopbackServer}: the accept loop, thread per connection and
 *       closing of a loopback TCP backend, for backends that differ only in what they do with a
 *       connection ({@code EchoServer}, the proxy tests' bulk-transfer one);
 *   <li>{@link io.fairway.testkit.FaultyTable}: a table that fails the changes a test names, for
 *       the tests of start, reload and shutdown on a table that refuses (fairway-table is an
 *       optional dependency here, so only modules that have it see it);
 *   <li>{@link io.fairway.testkit.RecordingTable}: a table with the kernel's answers that records
 *       every change, batch and publication, for the tests that check what was written and in what
 *       order (apply's sequencing tests, the daemon's reload and admin tests);
 *   <li>{@link io.fairway.testkit.ThreadNetns}: a test thread enters a network namespace.
 * </ul>
 */
@NullMarked
package io.fairway.testkit;

import org.jspecify.annotations.NullMarked;
