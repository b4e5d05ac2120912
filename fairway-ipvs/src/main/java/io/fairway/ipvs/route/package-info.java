/**
 * Host routes for announcing virtual addresses: Fairway keeps one unicast /32 or /128 route per
 * announced address in a kernel routing table of the operator's choosing, marked with a routing
 * protocol number of its own ({@link io.fairway.ipvs.route.RouteCodec#PROTOCOL}), and a routing
 * daemon already on the machine (BIRD's {@code protocol kernel { kernel table N; learn; }}, FRR's
 * {@code ip import-table N}) exports it over BGP. No BGP speaker lives in the JVM.
 *
 * <p>Why here, beside {@code io.fairway.netlink} and not inside it: the socket and wire codec are
 * shared, but rtnetlink routes have nothing to do with IPVS; the package only borrows the
 * transport. Why rtnetlink and not {@code ip route}: the announcer repairs drift on the table's
 * cadence and lists the table each time, and one dump over a kept socket costs less than a process.
 *
 * <p>The protocol number is what makes "remove exactly the routes Fairway installed" possible: at
 * start and at exit only routes of that protocol in that table are touched, so a route an operator
 * or another daemon keeps in the same table is never removed.
 */
@NullMarked
package io.fairway.ipvs.route;

import org.jspecify.annotations.NullMarked;
