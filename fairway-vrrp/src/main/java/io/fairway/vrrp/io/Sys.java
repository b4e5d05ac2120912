package io.fairway.vrrp.io;

import io.fairway.os.LibC;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The libc constants and structures only VRRP uses (x86_64/aarch64 Linux values). The calls, and
 * the socket constants other modules use too, are fairway-os's {@link LibC}, Fairway's one binding.
 */
final class Sys {
  private Sys() {}

  static final int AF_INET = 2;
  static final int AF_INET6 = 10;
  static final int AF_PACKET = 17;

  static final int SO_RXQ_OVFL = 40;

  static final int IPPROTO_IP = 0;
  static final int IP_TTL = 2;
  static final int IP_HDRINCL = 3;
  static final int IP_FREEBIND = 15;
  static final int IP_MULTICAST_IF = 32;
  static final int IP_MULTICAST_TTL = 33;
  static final int IP_MULTICAST_LOOP = 34;
  static final int IP_ADD_MEMBERSHIP = 35;

  static final int IPPROTO_IPV6 = 41;
  static final int IPPROTO_ICMPV6 = 58;
  static final int IPV6_CHECKSUM = 7;
  static final int IPV6_UNICAST_HOPS = 16;
  static final int IPV6_MULTICAST_IF = 17;
  static final int IPV6_MULTICAST_HOPS = 18;
  static final int IPV6_MULTICAST_LOOP = 19;
  static final int IPV6_ADD_MEMBERSHIP = 20;
  static final int IPV6_RECVPKTINFO = 49;
  static final int IPV6_PKTINFO = 50;
  static final int IPV6_RECVHOPLIMIT = 51;
  static final int IPV6_HOPLIMIT = 52;

  static final int EAGAIN = 11;
  static final int EINTR = 4;

  static byte[] intOpt(int v) {
    return ByteBuffer.allocate(4).order(ByteOrder.nativeOrder()).putInt(v).array();
  }

  static void setInt(int fd, int level, int name, int v) {
    LibC.setsockopt(fd, level, name, intOpt(v), 4);
  }

  static void receiveTimeout(int fd, int millis) {
    ByteBuffer tv = ByteBuffer.allocate(16).order(ByteOrder.nativeOrder());
    tv.putLong(millis / 1000).putLong((millis % 1000) * 1000L);
    LibC.setsockopt(fd, LibC.SOL_SOCKET, LibC.SO_RCVTIMEO, tv.array(), 16);
  }

  static void bindToDevice(int fd, String ifname) {
    byte[] name = new byte[16];
    byte[] b = ifname.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    System.arraycopy(b, 0, name, 0, Math.min(15, b.length));
    LibC.setsockopt(fd, LibC.SOL_SOCKET, LibC.SO_BINDTODEVICE, name, name.length);
  }

  static final int SOCK_DGRAM = 2;
  static final long SIOCGIFFLAGS = 0x8913;
  static final int IFF_UP = 0x1;
  static final int IFF_RUNNING = 0x40;
  static final int ENODEV = 19;

  /** struct sockaddr_in / sockaddr_in6 for an address (port 0; scope for link-local IPv6). */
  static byte[] sockaddr(java.net.InetAddress a, int ifindex) {
    ByteBuffer b;
    if (a instanceof java.net.Inet4Address) {
      b = ByteBuffer.allocate(16).order(ByteOrder.nativeOrder());
      b.putShort((short) AF_INET).putShort((short) 0).put(a.getAddress());
    } else {
      b = ByteBuffer.allocate(28).order(ByteOrder.nativeOrder());
      b.putShort((short) AF_INET6)
          .putShort((short) 0)
          .putInt(0)
          .put(a.getAddress())
          .putInt(ifindex);
    }
    return b.array();
  }
}
