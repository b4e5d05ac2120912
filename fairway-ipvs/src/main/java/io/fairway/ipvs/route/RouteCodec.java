package io.fairway.ipvs.route;

import io.fairway.netlink.Attributes;
import io.fairway.netlink.MalformedMessageException;
import io.fairway.netlink.Netlink;
import io.fairway.netlink.NetlinkMessage;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Optional;

/**
 * The rtnetlink messages the announcer needs ({@code linux/rtnetlink.h}): route add, delete and
 * dump requests, and the parsing of dumped routes and addresses. Pure Java over byte buffers;
 * tested against a real kernel by RouteTableNetnsTest.
 */
public final class RouteCodec {
  private RouteCodec() {}

  /**
   * Fairway's routing protocol number ({@code rtm_protocol}), 250 (0xfa): unused in iproute2's
   * {@code /etc/iproute2/rt_protos} and below 256 as the field requires. Operators filter on it
   * ({@code ip route show table 100 proto 250}, BIRD's {@code krt_source = 250}).
   */
  public static final int PROTOCOL = 0xfa;

  static final int NETLINK_ROUTE = 0;
  static final int RTM_NEWADDR = 20;
  static final int RTM_GETADDR = 22;
  static final int RTM_NEWROUTE = 24;
  static final int RTM_DELROUTE = 25;
  static final int RTM_GETROUTE = 26;
  static final int AF_UNSPEC = 0;
  static final int AF_INET = 2;
  static final int AF_INET6 = 10;
  static final int RTA_DST = 1;
  static final int RTA_OIF = 4;
  static final int RTA_TABLE = 15;
  static final int IFA_ADDRESS = 1;
  static final int IFA_LOCAL = 2;
  static final int RTN_UNICAST = 1;
  static final int RT_SCOPE_UNIVERSE = 0;
  static final int RT_SCOPE_LINK = 253;
  static final int RT_TABLE_COMPAT = 252;
  static final int NLM_F_EXCL = 0x200;
  static final int NLM_F_CREATE = 0x400;
  static final int RTMSG_LEN = 12;
  static final int IFADDRMSG_LEN = 8;

  /** An {@code RTM_NEWROUTE} (create, fail if present) or {@code RTM_DELROUTE} with an ack. */
  public static byte[] change(boolean add, HostRoute r, int seq) {
    boolean v4 = r.address() instanceof Inet4Address;
    int flags = Netlink.NLM_F_REQUEST | Netlink.NLM_F_ACK | (add ? NLM_F_CREATE | NLM_F_EXCL : 0);
    ByteBuffer b = header(add ? RTM_NEWROUTE : RTM_DELROUTE, flags, seq, 64);
    b.put((byte) (v4 ? AF_INET : AF_INET6))
        .put((byte) r.prefixLength())
        .put((byte) 0) // src_len
        .put((byte) 0) // tos
        .put((byte) (r.table() < 256 ? r.table() : RT_TABLE_COMPAT))
        .put((byte) PROTOCOL)
        // As iproute2 does for a route without a gateway: link scope for IPv4, universe for IPv6.
        .put((byte) (v4 ? RT_SCOPE_LINK : RT_SCOPE_UNIVERSE))
        .put((byte) RTN_UNICAST)
        .putInt(0);
    attr(b, RTA_DST, r.address().getAddress());
    attr(b, RTA_TABLE, u32(r.table()));
    attr(b, RTA_OIF, u32(r.ifindex()));
    return finish(b);
  }

  /** A dump of every route ({@code family} {@link #AF_UNSPEC}) or every address. */
  public static byte[] dump(int type, int seq) {
    ByteBuffer b = header(type, Netlink.NLM_F_REQUEST | Netlink.NLM_F_DUMP, seq, 64);
    b.put(new byte[type == RTM_GETADDR ? IFADDRMSG_LEN : RTMSG_LEN]);
    return finish(b);
  }

  /**
   * The route in a dumped {@code RTM_NEWROUTE} if it is a host route of Fairway's protocol in
   * {@code table}; empty for any other route.
   */
  public static Optional<HostRoute> ownRoute(NetlinkMessage m, int table) {
    ByteBuffer p = m.payload();
    if (m.type() != RTM_NEWROUTE || p.remaining() < RTMSG_LEN) {
      return Optional.empty();
    }
    int family = Byte.toUnsignedInt(p.get(0));
    int dstLen = Byte.toUnsignedInt(p.get(1));
    int protocol = Byte.toUnsignedInt(p.get(5));
    if (protocol != PROTOCOL || (family != AF_INET && family != AF_INET6)) {
      return Optional.empty();
    }
    Attributes a = Attributes.parse(p.duplicate().position(RTMSG_LEN));
    int rtTable = a.u32(RTA_TABLE, Byte.toUnsignedInt(p.get(4)));
    if (rtTable != table || !a.has(RTA_DST) || !a.has(RTA_OIF)) {
      return Optional.empty();
    }
    InetAddress dst = address(a.bytes(RTA_DST));
    boolean host = dst instanceof Inet4Address ? dstLen == 32 : dstLen == 128;
    return host ? Optional.of(new HostRoute(dst, a.u32(RTA_OIF), table)) : Optional.empty();
  }

  /** The interface index of a dumped {@code RTM_NEWADDR} if it carries {@code address}. */
  public static Optional<Integer> interfaceOf(NetlinkMessage m, InetAddress address) {
    ByteBuffer p = m.payload();
    if (m.type() != RTM_NEWADDR || p.remaining() < IFADDRMSG_LEN) {
      return Optional.empty();
    }
    Attributes a = Attributes.parse(p.duplicate().position(IFADDRMSG_LEN));
    byte[] want = address.getAddress();
    for (int type : new int[] {IFA_LOCAL, IFA_ADDRESS}) {
      if (a.has(type) && java.util.Arrays.equals(a.bytes(type), want)) {
        return Optional.of(p.getInt(4));
      }
    }
    return Optional.empty();
  }

  private static InetAddress address(byte[] raw) {
    if (raw.length != 4 && raw.length != 16) {
      throw new MalformedMessageException("route destination of " + raw.length + " bytes");
    }
    try {
      return InetAddress.getByAddress(raw);
    } catch (UnknownHostException e) {
      throw new MalformedMessageException("route destination unreadable");
    }
  }

  private static ByteBuffer header(int type, int flags, int seq, int capacity) {
    ByteBuffer b = ByteBuffer.allocate(capacity).order(ByteOrder.nativeOrder());
    b.putInt(0).putShort((short) type).putShort((short) flags).putInt(seq).putInt(0);
    return b;
  }

  private static byte[] u32(int v) {
    return ByteBuffer.allocate(4).order(ByteOrder.nativeOrder()).putInt(v).array();
  }

  private static void attr(ByteBuffer b, int type, byte[] value) {
    b.putShort((short) (Netlink.NLA_HDRLEN + value.length)).putShort((short) type).put(value);
    while ((b.position() & 3) != 0) {
      b.put((byte) 0);
    }
  }

  private static byte[] finish(ByteBuffer b) {
    b.putInt(0, b.position());
    byte[] out = new byte[b.position()];
    b.flip().get(out);
    return out;
  }
}
