/**
 * VRRP advertisements on the wire: VRRPv2 (RFC 3768, IPv4, optional simple-text password) and
 * VRRPv3 (RFC 5798, IPv4 and IPv6, checksum over a pseudo-header), and the IPv4 header the raw
 * socket hands us.
 *
 * <p>Why pure byte code with one exception type: adverts come from the network, so anyone on the
 * link can send any bytes. The decoder looks at nothing beyond the given length, allocates at most
 * the 255 addresses the count byte allows, and throws only {@link
 * io.fairway.vrrp.packet.MalformedAdvertException}, which makes it safe to fuzz and to call on the
 * receive loop without a catch-all.
 */
@NullMarked
package io.fairway.vrrp.packet;

import org.jspecify.annotations.NullMarked;
