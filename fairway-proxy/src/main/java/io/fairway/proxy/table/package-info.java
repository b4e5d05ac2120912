/**
 * The userspace table's model: the virtual services and destinations behind the plane's {@code
 * ProxyTable} ({@code io.fairway.proxy.plane}), the {@link io.fairway.table.Table} the apply layer
 * drives exactly as it drives the kernel's IPVS ({@link io.fairway.proxy.table.ServiceTable}), and
 * the state that decides which real server each new connection or request gets.
 *
 * <h2>Why it knows no frontend</h2>
 *
 * <p>The frontends ({@code l4}, {@code http}, {@code http2}, {@code udp}) depend on this package;
 * it depends on none of them, nor on the plane that builds them. Where a change here must reach
 * their connections (a removed server, a new idle timeout) it tells the plane through {@link
 * io.fairway.proxy.table.Frontends}; what a frontend keeps per real server (HTTP's idle
 * connections) it attaches to the server under its own key ({@link
 * io.fairway.proxy.table.BackendAttachment}); and what a hashing director reads of a request it
 * asks of the request through {@link io.fairway.proxy.table.RequestKey.Source}. So a scheduling
 * rule is tested without a socket, and a frontend changes without touching the decision.
 *
 * <h2>Why the decision is kept apart from the wire</h2>
 *
 * <p>An operator moving from keepalived and IPVS expects the same table to give the same answers:
 * the same server for a client under sh or mh, the same refusal once every server is over its
 * {@code uthreshold}, the same sticky client under persistence, and for the Varnish directors the
 * server varnishd would choose. All of that is here and nowhere else: kernel schedulers run in the
 * director library's model of an IPVS service, Varnish directors over the plan's members with their
 * names, idents and decimal weights ({@link io.fairway.proxy.table.ListenerSpec}), and thresholds,
 * persistence templates and the sorry server's overflow follow the kernel. Connections are counted
 * as the kernel counts them (active while established, inactive for a while after), because lc, wlc
 * and the thresholds read those counts. The frontends in {@code l4}, {@code http} and {@code udp}
 * only ask for a {@link io.fairway.proxy.table.Lease} and give it back.
 *
 * <p>One departure, on purpose: where the kernel refuses a connection that finds every server at
 * its {@code uthreshold} (and no sorry server), here it waits for a slot in the service's {@link
 * io.fairway.proxy.table.SlotQueue}, up to the connect timeout, and only then is refused. A refused
 * client comes straight back; a userspace proxy pays for every such round trip, the kernel hardly
 * does. Ending leases wake the queue, so it lives here with them, and so does the decision to wait:
 * {@link io.fairway.proxy.table.ProxyService#schedule} answers the L4 and the HTTP frontend alike
 * with a lease, a place in the queue or a refusal and its reason ({@link
 * io.fairway.proxy.table.Pick}), and calls back the waiters it queued ({@link
 * io.fairway.proxy.table.SlotWaiter}). Which connections and requests wait, and in what order, is
 * then one rule for both; they only say how long (their connect timeout) and answer in their
 * protocol. UDP does not wait: it takes {@link io.fairway.proxy.table.ProxyService#select}'s
 * answer, and a datagram without a server is dropped.
 *
 * <h2>Why a reload keeps connections</h2>
 *
 * <p>A {@link io.fairway.proxy.table.ProxyBackend} lives as long as its destination, and a virtual
 * service's listener as long as its service: a weight change, a new director or a whole new plan
 * changes what new connections see, while established ones, their counters and the members that
 * stay are left as they are, as a kernel table survives {@code ipvsadm -e}.
 *
 * <h2>Threads</h2>
 *
 * <p>Table operations are serialised on the table; each change publishes an immutable pool that
 * event loops read once per connection or request without locking, so a busy data plane never waits
 * for the apply thread and never sees half a change.
 */
@NullMarked
package io.fairway.proxy.table;

import org.jspecify.annotations.NullMarked;
