/**
 * UDP virtual services: one socket on the virtual address, and a flow per client address and port
 * bound to the real server its first datagram went to.
 *
 * <p>Why flows rather than a choice per datagram: IPVS schedules UDP per connection and keeps it
 * for the {@code udp} timeout after its last datagram, so a retrying DNS client reaches the same
 * server, persistence works, and lc, wlc and the thresholds count UDP connections. The userspace
 * plane keeps the same promise. Each flow has a socket connected to its server, so only that
 * server's answers reach it and an ICMP port unreachable ends the flow; answers leave through the
 * virtual address's socket, so the client sees them come from where it sent. Flows are bounded
 * table-wide ({@link io.fairway.proxy.ProxyOptions#maxUdpFlows()}), because each is a file
 * descriptor and a flood of client addresses must not take the process's last ones from TCP.
 */
@NullMarked
package io.fairway.proxy.udp;

import org.jspecify.annotations.NullMarked;
