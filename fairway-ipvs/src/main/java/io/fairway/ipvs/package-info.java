/**
 * The table: virtual services and their destinations, as the Linux kernel's IPVS holds them.
 *
 * <p>{@link io.fairway.ipvs.Table} is the seam between deciding and forwarding. The apply layer
 * drives it from health verdicts; two implementations forward: the kernel's IPVS over generic
 * netlink (this module) and Fairway's userspace proxy (module {@code fairway-proxy}). Keeping the
 * interface free of netlink is what lets an operator try a production keepalived.conf on a laptop
 * without root: the same verdicts produce the same table, only the forwarder differs.
 *
 * <p>The value types mirror the kernel's own: a service is identified by protocol, address and
 * port, or by firewall mark; a destination by address and port. Everything else (scheduler,
 * weight, thresholds) is state that {@code set} operations change without removing the entry,
 * because removing an entry is what drops established connections.
 */
package io.fairway.ipvs;
