/**
 * A small generic-netlink client: the wire codec ({@link io.fairway.netlink.MessageBuilder}, {@link
 * io.fairway.netlink.Attributes}, {@link io.fairway.netlink.NetlinkMessage}), a raw socket over JNA
 * ({@link io.fairway.netlink.NetlinkSocket}) and the request patterns ({@link
 * io.fairway.netlink.GenericNetlink}: family lookup, request/ack, dump, batch). Its own module
 * because three others speak netlink: fairway-ipvs (IPVS and the route table), fairway-vrrp
 * (rtnetlink: addresses and links) and fairway-daemon (the announce routes); none of them needs
 * another's code for it.
 *
 * <p>Why not shell out to {@code ipvsadm}: an operator's table of thousands of real servers is
 * installed at start and rewritten on every reload, and one process plus one round trip per rule
 * makes that take tens of seconds, during which the table is half-built. Why not libnl through JNA:
 * the part of netlink IPVS needs is a few hundred lines, and owning them lets a batch be one
 * datagram with its acks read by one {@code recvmmsg}, which libnl's one-message-at-a-time API does
 * not offer.
 *
 * <p>The codec is pure Java over byte buffers so it is tested without a kernel, on hand-built
 * messages and on replies captured from a real one. Integers are in host byte order, as netlink
 * wants; the few network-order fields are written by explicitly named methods.
 */
@NullMarked
package io.fairway.netlink;

import org.jspecify.annotations.NullMarked;
