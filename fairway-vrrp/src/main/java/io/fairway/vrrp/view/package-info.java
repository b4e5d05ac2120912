/**
 * What the speaker shows of itself, as typed immutable values: a {@link
 * io.fairway.vrrp.view.VrrpSnapshot} of every instance and sync group with their counters, and a
 * {@link io.fairway.vrrp.view.VrrpTransition} per state change.
 *
 * <p>Why a package of its own: the daemon's status text, runtime API, event stream and metrics all
 * read these, and none of them should reach into the speaker's event-thread state; the speaker
 * builds them, everyone else only reads.
 */
@NullMarked
package io.fairway.vrrp.view;

import org.jspecify.annotations.NullMarked;
