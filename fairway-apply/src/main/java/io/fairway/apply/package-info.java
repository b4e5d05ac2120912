/**
 * Turns health-check verdicts into table changes.
 *
 * <p>It is the table side of the seam between the health-check framework ({@code
 * io.fairway.check}), which decides whether a backend is usable, and the table ({@code
 * io.fairway.table}: the kernel's IPVS or the userspace data plane). Neither knows about the other.
 * Verdicts arrive here as plain calls ({@link io.fairway.apply.Applier#setAlive setAlive}, {@code
 * setWeight}, {@code quorum}), so this module does not depend on the check framework; the adapter
 * that turns the check engine's events into those calls is the daemon's {@code ApplyingListener},
 * next to the reload logic that replaces both sides together. This is the only place that knows how
 * a verdict changes the table.
 *
 * <h2>Removing a server and draining a server are different operations</h2>
 *
 * <p>A failed real server can be handled two ways, and the difference decides whether existing
 * connections survive:
 *
 * <ul>
 *   <li><b>Remove</b> it from the table. Established connections to it are dropped immediately,
 *       because the kernel no longer has an entry to route them by.
 *   <li><b>Set its weight to zero</b> ({@code inhibit_on_failure}). No <em>new</em> connections are
 *       scheduled to it, and existing ones continue until they close.
 * </ul>
 *
 * <p>Draining is almost always what an operator wants for a server that failed a health check but
 * is still answering — an application that is slow is not an application that should have every
 * in-flight request killed. Removal is what they want for one that is genuinely gone.
 *
 * <h2>What the layer guarantees</h2>
 *
 * <ul>
 *   <li>A server that starts down (alpha) is not installed at start: adding it and immediately
 *       removing it would put an unchecked backend in the table for the length of two syscalls. (An
 *       {@code inhibit_on_failure} server that starts down is installed at weight 0, as keepalived
 *       does: weight 0 schedules nothing, so the concern does not arise, and its recovery is then a
 *       weight change rather than an insertion.)
 *   <li>A virtual server that starts below quorum gets its sorry server at {@link
 *       io.fairway.apply.Applier#init init}: a cold start against a dead pool is the case the sorry
 *       server most exists for.
 *   <li>The sorry server goes in <em>before</em> the real servers come out and comes out
 *       <em>after</em> they go back, so there is never a window with no destination.
 *   <li>While the sorry server serves, verdicts are recorded but the table is not touched, so the
 *       pool restored when quorum returns is the one healthy then.
 *   <li>A reload diffs rather than rebuilds, and keeps presence tracking: it records what is in the
 *       kernel, and the kernel's table survives a reload.
 *   <li>Verdicts that arrive together are published together ({@code PublicationHold}, once the
 *       daemon lends its timer with {@link io.fairway.apply.Applier#coalesceVerdicts}): on a table
 *       that publishes to readers elsewhere (the userspace proxy) each service's pool goes out once
 *       per burst, at most 50 ms after its first verdict, instead of once per verdict. Every table
 *       call is still made, and refused, when its verdict is, so a refused verdict is not recorded
 *       and the check engine retries it; the order of operations, quorum and the sorry server,
 *       notify scripts and events are those of one verdict at a time. Nothing else is held, and not
 *       by each method's care: every table call goes through {@link
 *       io.fairway.apply.TolerantTable}, which publishes what is held before any call a verdict
 *       does not make. The kernel's table makes each change live at once and is not held.
 * </ul>
 *
 * <h2>Two Fairway extensions that only need weights</h2>
 *
 * <p>The kernel's table has no notion of "overflow" or "ramp", only weights, so both extensions are
 * weight changes made from here, identical on every table:
 *
 * <ul>
 *   <li>{@code overflow_to_sorry_server}: the sorry server stands by at weight 0, invisible to
 *       every scheduler, and {@link io.fairway.apply.OverflowWatch} raises it only while the
 *       kernel's counters say no real server can take a connection ({@link
 *       io.fairway.apply.PoolRoom}). Raised earlier it would take connections the pool has room
 *       for; any scheduler trick would change which real server gets each connection.
 *   <li>{@code slow_start}: a server that comes up after start is stepped from a low weight to its
 *       own in a bounded number of steps ({@link io.fairway.apply.SlowStartSteps}), because every
 *       step is a table call. A table whose scheduler ramps by itself ({@link
 *       io.fairway.table.RampTarget}, the userspace proxy) is handed the ramp instead and gets the
 *       full weight, so rr and lc ramp too and nothing is ramped twice.
 * </ul>
 *
 * <p>Table calls follow keepalived's {@code ipvs_talk} tolerance: an add that finds the entry
 * already there and a delete that finds it gone are success, and a weight change that finds no
 * destination adds it ({@link io.fairway.apply.TolerantTable}).
 */
@NullMarked
package io.fairway.apply;

import org.jspecify.annotations.NullMarked;
