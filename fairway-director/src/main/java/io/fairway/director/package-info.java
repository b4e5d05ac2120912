/**
 * Backend selection: the director library every Fairway data plane (and any Java application
 * balancing client-side) uses to pick a backend for each new connection or request.
 *
 * <p>What an operator wants from it: the same request goes where Varnish (for {@code shard} and
 * {@code hash}) or the Linux kernel (for the IPVS schedulers) would send it, so moving between
 * Fairway and those is not a cache-miss storm or a session reshuffle; a health change takes effect
 * atomically; and picking costs nanoseconds with no garbage, so it never shows in latency.
 *
 * <p>The model:
 *
 * <ul>
 *   <li>{@link io.fairway.director.Backend}: something a director can choose, a real server or
 *       another director (layering).
 *   <li>{@link io.fairway.director.Member}: a backend in a director, with weight, health and the
 *       time health last changed (for shard rampup).
 *   <li>{@link io.fairway.director.Snapshot}: the immutable member set a pick reads; every
 *       membership, weight or health change publishes a new one ({@link
 *       io.fairway.director.AbstractDirector}). Picks never lock and never see a torn state.
 *   <li>{@link io.fairway.director.Request}: what algorithms may select by (a precomputed key, a
 *       key string, client and destination addresses, {@code alt}).
 *   <li>{@link io.fairway.director.Director}: {@code choose} one member, {@code pick} resolves
 *       through layers to a real server.
 *   <li>{@link io.fairway.director.Directors}: lookup by name.
 *   <li>{@link io.fairway.director.SlowStart}: slow start in the algorithm itself, one rule for
 *       every family (a ramping member is scheduled as if its weight were {@code f·w}), so a
 *       recovered server is not flooded even by algorithms that ignore weights.
 * </ul>
 *
 * <p>The Varnish algorithms live in {@code io.fairway.director.varnish}; the kernel's in {@code
 * io.fairway.director.sched}. This module has no runtime dependencies.
 *
 * <p>The three packages are {@code @NullMarked}: whatever a caller may leave out (a request's key
 * or client, a clock, a director's previous state) and whatever a pick may not find is declared
 * {@code @Nullable}, and NullAway checks every use at compile time, because a library called from
 * several data planes cannot rely on each caller knowing which values may be absent.
 */
@NullMarked
package io.fairway.director;

import org.jspecify.annotations.NullMarked;
