/**
 * The L4 TCP relay of {@code lb_kind PROXY} services (and of NAT, DR and TUN services tried with
 * {@code --userspace}): one real server per client connection, bytes relayed unchanged both ways
 * until both sides are done.
 *
 * <p>{@link io.fairway.proxy.l4.TcpFrontend} takes a lease, connects, and tries the next server
 * when a connect fails, reading nothing from the client until the backend connection exists, so
 * nothing is buffered for a server that may never answer. {@link io.fairway.proxy.l4.Relay} moves
 * each direction with backpressure and honours half-close, because protocols that send a request
 * and then shut down their side still expect the whole answer.
 *
 * <p>Why bytes are counted in the read allocator ({@link io.fairway.proxy.l4.TrafficMeter}) and not
 * in the pipeline: a bulk transfer is spliced kernel-to-kernel on epoll and never passes through a
 * handler, yet it must still count for the table's byte counters and keep the idle timeout ({@link
 * io.fairway.proxy.l4.IdleWatch}) from closing a busy connection.
 */
@NullMarked
package io.fairway.proxy.l4;

import org.jspecify.annotations.NullMarked;
