/**
 * The PROXY protocol (HAProxy's v1 text and v2 binary headers), both ways: {@code proxy_protocol
 * accept} reads the header a load balancer in front writes at the start of each client connection,
 * and {@code send_proxy} writes one at the start of each backend connection.
 *
 * <p>Why a package of its own: the client address the header names must be the one every later
 * stage sees (forwarding headers, {@code by CLIENT_IP} keys, {@code sh}/{@code mh} hashing,
 * persistence, logs), in the HTTP and the L4 frontend alike. So the header is read before either
 * frontend exists for the connection, and what it names is kept on the channel ({@link
 * io.fairway.proxy.proxyprotocol.ClientAddress}), where both frontends read the client address
 * instead of the socket's peer. The wire format itself is Netty's ({@code netty-codec-haproxy});
 * what is here is the bounds a hostile client meets (a deadline, a size limit, a counter for every
 * refusal) and the choice of what a header says.
 */
@NullMarked
package io.fairway.proxy.proxyprotocol;

import org.jspecify.annotations.NullMarked;
