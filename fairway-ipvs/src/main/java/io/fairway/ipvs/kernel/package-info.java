/**
 * The Linux kernel's IPVS as a {@link io.fairway.table.Table}: {@link
 * io.fairway.ipvs.kernel.IpvsKernelTable} speaks the {@code IPVS} generic-netlink family the way
 * keepalived's libipvs does, and {@link io.fairway.ipvs.kernel.IpvsCodec} maps the table's value
 * types to the family's attributes and back.
 *
 * <p>What goes wrong otherwise: the kernel accepts some wrong encodings silently and installs
 * something else (a little-endian port is another port; an IPv4 netmask sent as a prefix length is
 * a mask of a few bits), so the codec is tested field by field and every kernel test reads the
 * table back. Kernel errors become {@link io.fairway.table.TableException}s whose reason callers
 * can act on (keepalived treats EEXIST on add and ENOENT on delete as success) and whose message
 * names the service and destination, so a refused change in a table of thousands can be found.
 *
 * <p>A kernel without IPVS (no {@code ip_vs} module, or a container without it) gets one line,
 * {@link io.fairway.ipvs.kernel.IpvsKernelTable#NO_IPVS}, pointing to the userspace data plane.
 */
@NullMarked
package io.fairway.ipvs.kernel;

import org.jspecify.annotations.NullMarked;
