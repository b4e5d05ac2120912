package io.fairway.vrrp.io;

import com.sun.jna.LastErrorException;
import io.fairway.os.LibC;
import java.io.Closeable;
import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Tells the link that a new master holds the virtual addresses: gratuitous ARP (an ARP request from
 * and for the address, broadcast, over AF_PACKET) for IPv4, an unsolicited neighbour advertisement
 * (ICMPv6 type 136 with the override flag, to ff02::1, hop limit 255) for IPv6.
 */
public final class NeighbourAnnouncer implements Closeable {
  private static final int ETH_P_ARP = 0x0806;
  private static final byte[] ALL_NODES = {
    (byte) 0xff, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1
  };

  private final int packetFd;
  private final int icmpFd;

  private NeighbourAnnouncer(int packetFd, int icmpFd) {
    this.packetFd = packetFd;
    this.icmpFd = icmpFd;
  }

  public static NeighbourAnnouncer open() throws IOException {
    int p;
    int i;
    try {
      p =
          LibC.socket(
              Sys.AF_PACKET,
              LibC.SOCK_RAW | LibC.SOCK_CLOEXEC,
              Short.reverseBytes((short) ETH_P_ARP) & 0xffff);
    } catch (LastErrorException e) {
      throw new IOException("AF_PACKET socket for gratuitous ARP: " + VrrpSocket.errno(e));
    }
    try {
      i = LibC.socket(Sys.AF_INET6, LibC.SOCK_RAW | LibC.SOCK_CLOEXEC, Sys.IPPROTO_ICMPV6);
      Sys.setInt(i, Sys.IPPROTO_IPV6, Sys.IPV6_MULTICAST_HOPS, 255);
      Sys.setInt(i, Sys.IPPROTO_IPV6, Sys.IPV6_UNICAST_HOPS, 255);
    } catch (LastErrorException e) {
      LibC.close(p);
      throw new IOException("ICMPv6 socket for neighbour advertisements: " + VrrpSocket.errno(e));
    }
    return new NeighbourAnnouncer(p, i);
  }

  /** One announcement of {@code address} on {@code link}. */
  public void announce(Link link, InetAddress address) throws IOException {
    if (link.mac().length != 6) {
      return; // no Ethernet address: nothing to announce
    }
    try {
      if (address instanceof Inet4Address) {
        byte[] frame = garp(link.mac(), address.getAddress());
        byte[] ll = sockaddrLl(link.index());
        LibC.sendto(packetFd, frame, frame.length, 0, ll, ll.length);
      } else {
        Sys.setInt(icmpFd, Sys.IPPROTO_IPV6, Sys.IPV6_MULTICAST_IF, link.index());
        byte[] na = neighbourAdvert(link.mac(), address.getAddress());
        byte[] to = Sys.sockaddr(InetAddress.getByAddress(ALL_NODES), link.index());
        LibC.sendto(icmpFd, na, na.length, 0, to, to.length);
      }
    } catch (LastErrorException e) {
      throw new IOException(
          "announcing "
              + address.getHostAddress()
              + " on "
              + link.name()
              + ": "
              + VrrpSocket.errno(e));
    }
  }

  static byte[] garp(byte[] mac, byte[] ip) {
    ByteBuffer b = ByteBuffer.allocate(42);
    for (int i = 0; i < 6; i++) {
      b.put((byte) 0xff);
    }
    b.put(mac).putShort((short) ETH_P_ARP);
    b.putShort((short) 1)
        .putShort((short) 0x0800)
        .put((byte) 6)
        .put((byte) 4)
        .putShort((short) 1); // ARP request, as keepalived
    b.put(mac).put(ip);
    for (int i = 0; i < 6; i++) {
      b.put((byte) 0xff);
    }
    b.put(ip);
    return b.array();
  }

  static byte[] neighbourAdvert(byte[] mac, byte[] ip6) {
    ByteBuffer b = ByteBuffer.allocate(32);
    b.put((byte) 136).put((byte) 0).putShort((short) 0); // type, code, checksum (kernel fills)
    b.put((byte) 0x20).put(new byte[3]); // override
    b.put(ip6);
    b.put((byte) 2).put((byte) 1).put(mac); // target link-layer address option
    return b.array();
  }

  private static byte[] sockaddrLl(int ifindex) {
    ByteBuffer b = ByteBuffer.allocate(20).order(ByteOrder.nativeOrder());
    b.putShort((short) Sys.AF_PACKET);
    b.order(ByteOrder.BIG_ENDIAN).putShort((short) ETH_P_ARP);
    b.order(ByteOrder.nativeOrder())
        .putInt(ifindex)
        .putShort((short) 1)
        .put((byte) 0)
        .put((byte) 6);
    for (int i = 0; i < 6; i++) {
      b.put((byte) 0xff);
    }
    return b.array();
  }

  @Override
  public void close() {
    LibC.close(packetFd);
    LibC.close(icmpFd);
  }
}
