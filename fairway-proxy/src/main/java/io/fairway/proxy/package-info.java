/**
 * Fairway's userspace data plane: the same table the kernel's IPVS implements, forwarded by Fairway
 * itself, so {@code fairway run --userspace} needs neither root nor an IPVS kernel, and so a
 * virtual server can be an HTTP reverse proxy ({@code lb_kind HTTP}) with Varnish's directors,
 * which no kernel table can be.
 *
 * <h2>Why it is cut into these parts</h2>
 *
 * <p>Two questions are answered for every connection, and they are tested against different things,
 * so they live apart:
 *
 * <ul>
 *   <li><b>Who gets it</b> ({@link io.fairway.proxy.table}): the model behind the {@link
 *       io.fairway.table.Table} implementation and each virtual service's state (members, weights,
 *       thresholds, persistence, the scheduler or director, connection counts). This is what must
 *       decide exactly as the kernel's IPVS and varnishd decide, and what {@code fairway pick}
 *       predicts.
 *   <li><b>How the bytes move</b>, one package per protocol: {@link io.fairway.proxy.l4} (the TCP
 *       relay), {@link io.fairway.proxy.http} (the HTTP/1.1 reverse proxy), {@link
 *       io.fairway.proxy.udp} (UDP flows). This is what must behave on the wire as HAProxy and
 *       nginx do, and survive hostile clients and backends.
 * </ul>
 *
 * <p>They meet at two points only: the plane ({@link io.fairway.proxy.plane}, one level above both)
 * builds a frontend's pipeline for each accepted connection (or the UDP relay for a UDP listener),
 * and a frontend asks its virtual service for a {@code Lease} on a real server, which it closes
 * when the connection or request ends. Nothing else crosses, so a new protocol is a new frontend
 * package and a new scheduling rule never touches the wire code.
 *
 * <h2>What stays here</h2>
 *
 * <p>What every part shares and none owns, so this package imports none of them: the table-wide
 * {@link io.fairway.proxy.ProxyOptions}, the per-service {@link io.fairway.proxy.ServiceTimeouts}
 * resolved from them, the choice of the system-call layer ({@link io.fairway.proxy.Transport}:
 * io_uring, epoll or NIO, and the epoll workaround in {@link io.fairway.proxy.KeptEpollChannels}),
 * and {@link io.fairway.proxy.RateLimitedLog}, because a fault a data plane repeats per connection
 * must not become a log line per connection.
 */
@NullMarked
package io.fairway.proxy;

import org.jspecify.annotations.NullMarked;
