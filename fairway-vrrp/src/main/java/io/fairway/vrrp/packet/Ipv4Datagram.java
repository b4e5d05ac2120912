package io.fairway.vrrp.packet;

import io.fairway.vrrp.packet.MalformedAdvertException.Kind;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * The IPv4 header a raw IPv4 socket returns in front of the payload.
 *
 * @param source the sender
 * @param destination 224.0.0.18 or our unicast address
 * @param ttl must be 255 for VRRP (RFC 3768 7.1: a router forwarded it otherwise)
 * @param payloadOffset where the VRRP message starts in the buffer
 * @param payloadLength its length (from the IP total length, not the read length)
 */
public record Ipv4Datagram(
    InetAddress source, InetAddress destination, int ttl, int payloadOffset, int payloadLength) {

  /** Parses the header of the {@code len} bytes read into {@code buf}. */
  public static Ipv4Datagram parse(byte[] buf, int len) throws MalformedAdvertException {
    if (len < 20 || len > buf.length) {
      throw new MalformedAdvertException(Kind.IP_HEADER, "short IPv4 header");
    }
    int version = (buf[0] & 0xff) >> 4;
    int ihl = (buf[0] & 0x0f) * 4;
    if (version != 4 || ihl < 20 || ihl > len) {
      throw new MalformedAdvertException(Kind.IP_HEADER, "bad IPv4 header");
    }
    int total = ((buf[2] & 0xff) << 8) | (buf[3] & 0xff);
    if (total < ihl || total > len) {
      throw new MalformedAdvertException(
          Kind.IP_HEADER,
          "IPv4 total length " + total + " does not fit the " + len + " bytes read");
    }
    int protocol = buf[9] & 0xff;
    if (protocol != AdvertCodec.PROTOCOL) {
      throw new MalformedAdvertException(Kind.IP_HEADER, "protocol " + protocol);
    }
    int ttl = buf[8] & 0xff;
    try {
      InetAddress src = InetAddress.getByAddress(java.util.Arrays.copyOfRange(buf, 12, 16));
      InetAddress dst = InetAddress.getByAddress(java.util.Arrays.copyOfRange(buf, 16, 20));
      return new Ipv4Datagram(src, dst, ttl, ihl, total - ihl);
    } catch (UnknownHostException e) {
      throw new AssertionError(e);
    }
  }
}
