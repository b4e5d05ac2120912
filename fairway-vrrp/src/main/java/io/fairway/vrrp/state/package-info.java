/**
 * The VRRP state machine of RFC 3768/5798 as keepalived 2.2 runs it, as pure code: no sockets, no
 * threads, no clock of its own. Each call takes "now" in nanoseconds and returns the actions to
 * perform (send an advert, change state); {@link io.fairway.vrrp.state.Router#deadline()} says when
 * to call {@link io.fairway.vrrp.state.Router#timer} next.
 *
 * <p>Why: failover correctness is about timing (master down interval, skew, preempt delay, priority
 * 0 on stop) and about orderings of events that are hard to provoke on a network. Pure code driven
 * by a test clock makes every ordering reproducible and lets property tests check the invariants
 * (at most one master among well-connected routers, the higher priority wins, a stopped master
 * hands over within the skew time) over thousands of schedules.
 */
@NullMarked
package io.fairway.vrrp.state;

import org.jspecify.annotations.NullMarked;
