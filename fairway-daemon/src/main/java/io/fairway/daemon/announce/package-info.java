/**
 * Announcing virtual addresses to the routers: which addresses this node should attract, from the
 * applier's view of its services, kept as host routes in the kernel table a routing daemon (BIRD,
 * FRR) exports over BGP ({@link io.fairway.ipvs.route}).
 *
 * <p>Why a package of its own: announcing reads the applier's status but changes nothing in it, and
 * writes a routing table the applier knows nothing about; keeping it apart keeps the applier's
 * single concern (the service table) and lets the rule "announce while every announcing service on
 * the address can serve" be tested without a kernel.
 */
@NullMarked
package io.fairway.daemon.announce;

import org.jspecify.annotations.NullMarked;
