/**
 * The userspace data plane's wiring: {@link io.fairway.proxy.plane.ProxyTable}, the {@link
 * io.fairway.table.Table} the apply layer drives, binds a listener for each service of the table
 * model ({@code io.fairway.proxy.table}) and builds the frontends of each connection it accepts
 * ({@code l4}, {@code http}, {@code http2}, {@code udp}).
 *
 * <h2>Why it is a level of its own</h2>
 *
 * <p>Building frontends for services needs both: the services, and every frontend. Kept in the
 * table, that made the table and the frontends depend on each other, so neither could change, nor
 * be tested, without the other. Here, one level above both, nothing below imports it: the frontends
 * see only the model, and the model tells the plane what only the frontends can do through {@link
 * io.fairway.proxy.table.Frontends}.
 */
@NullMarked
package io.fairway.proxy.plane;

import org.jspecify.annotations.NullMarked;
