/**
 * VRRP on the operator surface: the runtime API's {@code /api/v1/vrrp}, the event stream's {@code
 * vrrp_*} events and the {@code fairway_vrrp_*} metrics, all read from the speaker's typed {@link
 * io.fairway.vrrp.view.VrrpSnapshot} and {@link io.fairway.vrrp.view.VrrpTransition}.
 *
 * <p>Why a package of its own and not more routes in {@link io.fairway.daemon.admin.AdminApi}: VRRP
 * runs with or without virtual servers (a VRRP-only file has no daemon, no table), and it can come
 * and go across reloads; these classes take the speaker through a supplier and wrap whatever admin
 * routes and registry the mode has, so the admin layer does not need to know VRRP exists.
 */
@NullMarked
package io.fairway.daemon.vrrp;

import org.jspecify.annotations.NullMarked;
