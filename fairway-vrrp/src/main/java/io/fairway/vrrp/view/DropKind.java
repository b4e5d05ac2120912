package io.fairway.vrrp.view;

import io.fairway.vrrp.packet.MalformedAdvertException;
import java.util.Locale;

/**
 * Why a received packet was dropped or a send, address change or announcement failed: the decoder's
 * checks ({@link MalformedAdvertException.Kind}) and the speaker's own.
 */
public enum DropKind {
  TRUNCATED,
  VERSION,
  TYPE,
  LENGTH,
  CHECKSUM,
  AUTH_TYPE,
  FAMILY,
  INTERVAL,
  IP_HEADER,
  /** Received with a TTL / hop limit other than 255: routed, not from the link. */
  TTL,
  /** A valid advert of another VRRP version than the instance's. */
  VERSION_MISMATCH,
  /** The v2 password differs. */
  AUTH,
  /** The v2 advert interval differs from ours. */
  INTERVAL_MISMATCH,
  /** The advertised address list differs from ours (unless vrrp_skip_check_adv_addr). */
  ADDRESSES,
  /** No source address to send from (the interface lost its address). */
  NO_SOURCE,
  SEND,
  RECEIVE,
  /** Adding or removing a virtual address over rtnetlink failed. */
  ADDRESS,
  /** A gratuitous ARP or unsolicited neighbour advertisement could not be sent. */
  ANNOUNCE,
  /** An advert from the unspecified address (0.0.0.0 or ::): no router sends from there. */
  SOURCE_UNSPECIFIED,
  /** An advert from a multicast address. */
  SOURCE_MULTICAST,
  /** An advert from 255.255.255.255 or the subnet broadcast address of the interface. */
  SOURCE_BROADCAST,
  /** An advert from one of this router's own addresses (on the interface, or a unicast_src_ip). */
  SOURCE_OURS,
  /**
   * Packets the kernel dropped because a VRRP socket's receive queue was full (its {@code
   * SO_RXQ_OVFL} count): adverts this router never saw.
   */
  SOCKET_OVERFLOW;

  public static DropKind of(MalformedAdvertException.Kind k) {
    return valueOf(k.name());
  }

  /** The name in metrics and JSON: {@code checksum}, {@code version_mismatch}, ... */
  public String wire() {
    return name().toLowerCase(Locale.ROOT);
  }
}
