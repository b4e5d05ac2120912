/**
 * The kernel side of VRRP: raw IP protocol 112 sockets (multicast 224.0.0.18 / ff02::12 or
 * unicast), virtual addresses over rtnetlink, gratuitous ARP over AF_PACKET and unsolicited
 * neighbour advertisements over ICMPv6, all through fairway-os's libc binding ({@link
 * io.fairway.os.LibC}, Fairway's only one, so a call is declared once for every module).
 *
 * <p>Why JNA and not java.net: the JDK has no raw sockets, cannot read the received TTL or hop
 * limit (RFC 3768/5798 require 255, which proves the sender is on the link), cannot send an
 * Ethernet frame, and cannot add an address to an interface.
 *
 * <p>All of it needs {@code CAP_NET_RAW} and {@code CAP_NET_ADMIN}; {@code Capabilities} reads the
 * effective set, so a reload that brings VRRP to a run started without it can be refused before
 * anything changes rather than fail at the first address change.
 */
@NullMarked
package io.fairway.vrrp.io;

import org.jspecify.annotations.NullMarked;
