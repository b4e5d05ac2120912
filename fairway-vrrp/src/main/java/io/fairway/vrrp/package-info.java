/**
 * Fairway's VRRP speaker: keepalived's vrrp_instance, vrrp_sync_group and vrrp_script semantics,
 * interoperable with keepalived 2.2 on the wire.
 *
 * <p>Why here and split this way: {@link io.fairway.vrrp.state} decides (pure, testable with a
 * clock we move), {@link io.fairway.vrrp.packet} encodes (pure, fuzzable), {@link
 * io.fairway.vrrp.io} touches the kernel, and {@link io.fairway.vrrp.VrrpSpeaker} sequences them on
 * one thread so that an advert, an address change and a notify script happen in the order the state
 * machine gave them. What it sequences (sockets, virtual addresses, tracking, scripts, the running
 * instances) is in package-private classes beside it, one concern each.
 */
@NullMarked
package io.fairway.vrrp;

import org.jspecify.annotations.NullMarked;
