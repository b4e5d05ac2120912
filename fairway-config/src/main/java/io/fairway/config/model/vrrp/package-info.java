/**
 * The VRRP half of a keepalived.conf ({@code vrrp_instance}, {@code vrrp_sync_group}, {@code
 * vrrp_script} and the VRRP keywords of {@code global_defs}), resolved once with keepalived 2.2's
 * defaults and load-time adjustments.
 *
 * <p>Why a package of its own: the VRRP speaker (fairway-vrrp) needs none of the virtual server
 * model and the checker side needs none of this, so each depends only on what it reads. As in
 * {@link io.fairway.config.model}, every type is an immutable record compared by value (locations
 * always compare equal).
 */
@NullMarked
package io.fairway.config.model.vrrp;

import org.jspecify.annotations.NullMarked;
