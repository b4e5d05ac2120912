/**
 * The table: virtual services and their destinations, as the Linux kernel's IPVS holds them.
 *
 * <p>{@link io.fairway.table.Table} is the seam between deciding and forwarding. The apply layer
 * drives it from health verdicts; two implementations forward: the kernel's IPVS over generic
 * netlink (module {@code fairway-ipvs}) and Fairway's userspace proxy (module {@code
 * fairway-proxy}). Keeping the interface free of netlink is what lets an operator try a production
 * keepalived.conf on a laptop without root: the same verdicts produce the same table, only the
 * forwarder differs.
 *
 * <p>The value types mirror the kernel's own: a service is identified by protocol, address and
 * port, or by firewall mark; a destination by address and port. Everything else (scheduler, weight,
 * thresholds) is state that {@code set} operations change without removing the entry, because
 * removing an entry is what drops established connections.
 *
 * <p>{@link io.fairway.table.MemoryTable} is the kernel's behaviour without the kernel: the same
 * validation and the same errors, proven by running one contract test suite against both (the
 * kernel's inside user-mode Linux).
 *
 * <p>This is a module of its own, with no dependencies, so that the userspace data plane and the
 * apply layer do not carry JNA and netlink code they never call. The contract suite ({@code
 * TableContract}) ships in this module's test-jar for every implementation to run. The apply
 * layer's sequencing tests run on it. {@link io.fairway.table.TableFormat} prints any table the way
 * {@code ipvsadm -Ln} and {@code ipvsadm -Sn} do, byte for byte, so operators read the output they
 * know and tests can compare Fairway's table with keepalived's.
 *
 * <p>The kernel has no slow start, only weights; a table that ramps in its own scheduler says so by
 * implementing {@link io.fairway.table.RampTarget}, and is handed a typed {@link
 * io.fairway.table.Ramp} per destination instead of a weight stepped over time.
 */
@NullMarked
package io.fairway.table;

import org.jspecify.annotations.NullMarked;
