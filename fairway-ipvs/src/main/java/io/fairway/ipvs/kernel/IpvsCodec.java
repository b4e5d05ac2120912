package io.fairway.ipvs.kernel;

import io.fairway.netlink.Attributes;
import io.fairway.netlink.MalformedMessageException;
import io.fairway.netlink.MessageBuilder;
import io.fairway.netlink.Netlink;
import io.fairway.table.AddressFamily;
import io.fairway.table.Dest;
import io.fairway.table.DestEntry;
import io.fairway.table.DestKey;
import io.fairway.table.ForwardingMethod;
import io.fairway.table.Protocol;
import io.fairway.table.Service;
import io.fairway.table.ServiceFlag;
import io.fairway.table.ServiceKey;
import io.fairway.table.Stats;
import io.fairway.table.SyncDaemon;
import io.fairway.table.TableOp;
import io.fairway.table.Timeouts;
import io.fairway.table.Tunnel;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Objects;

/**
 * Encodes table operations as IPVS generic-netlink requests and decodes dump replies into the
 * table's value types. Pure: no socket, so it is tested on byte arrays, including replies captured
 * from a real kernel.
 *
 * <p>Wire details that are easy to get wrong (and that the kernel does not complain about, it just
 * installs something else): ports are big-endian, an IPv4 persistence netmask is the mask's bytes
 * in network order while an IPv6 one is a host-order prefix length, addresses are always sent as 16
 * bytes, and FLAGS carries a mask of all ones so a set replaces every flag.
 */
public final class IpvsCodec {
  private IpvsCodec() {}

  /**
   * Appends the request for {@code op} to {@code b}, with NLM_F_ACK and sequence number {@code
   * seq}.
   */
  public static void encode(MessageBuilder b, int familyId, int seq, TableOp op) {
    int flags = Netlink.NLM_F_REQUEST | Netlink.NLM_F_ACK;
    if (op instanceof TableOp.AddService a) {
      b.begin(familyId, flags, seq).genlHeader(Ipvs.CMD_NEW_SERVICE, Ipvs.VERSION);
      putService(b, a.service());
    } else if (op instanceof TableOp.SetService s) {
      b.begin(familyId, flags, seq).genlHeader(Ipvs.CMD_SET_SERVICE, Ipvs.VERSION);
      putService(b, s.service());
    } else if (op instanceof TableOp.DelService d) {
      b.begin(familyId, flags, seq).genlHeader(Ipvs.CMD_DEL_SERVICE, Ipvs.VERSION);
      putServiceKey(b, d.key());
    } else if (op instanceof TableOp.AddDest a) {
      b.begin(familyId, flags, seq).genlHeader(Ipvs.CMD_NEW_DEST, Ipvs.VERSION);
      putServiceKey(b, a.service());
      putDest(b, a.dest());
    } else if (op instanceof TableOp.SetDest s) {
      b.begin(familyId, flags, seq).genlHeader(Ipvs.CMD_SET_DEST, Ipvs.VERSION);
      putServiceKey(b, s.service());
      putDest(b, s.dest());
    } else if (op instanceof TableOp.DelDest d) {
      b.begin(familyId, flags, seq).genlHeader(Ipvs.CMD_DEL_DEST, Ipvs.VERSION);
      putServiceKey(b, d.service());
      int n = b.beginNested(Ipvs.CMD_ATTR_DEST);
      putDestKey(b, d.dest());
      b.endNested(n);
    } else if (op instanceof TableOp.Flush) {
      b.begin(familyId, flags, seq).genlHeader(Ipvs.CMD_FLUSH, Ipvs.VERSION);
    } else {
      throw new IllegalArgumentException("unknown op " + op);
    }
    b.end();
  }

  /** A GET_SERVICE dump request. */
  public static void encodeServiceDump(MessageBuilder b, int familyId, int seq) {
    b.begin(familyId, Netlink.NLM_F_REQUEST | Netlink.NLM_F_DUMP, seq)
        .genlHeader(Ipvs.CMD_GET_SERVICE, Ipvs.VERSION)
        .end();
  }

  /** A GET_DEST dump request for one service. */
  public static void encodeDestDump(MessageBuilder b, int familyId, int seq, ServiceKey key) {
    b.begin(familyId, Netlink.NLM_F_REQUEST | Netlink.NLM_F_DUMP, seq)
        .genlHeader(Ipvs.CMD_GET_DEST, Ipvs.VERSION);
    putServiceKey(b, key);
    b.end();
  }

  /** A GET_INFO request. */
  public static void encodeGetInfo(MessageBuilder b, int familyId, int seq) {
    b.begin(familyId, Netlink.NLM_F_REQUEST | Netlink.NLM_F_ACK, seq)
        .genlHeader(Ipvs.CMD_GET_INFO, Ipvs.VERSION)
        .end();
  }

  /** A GET_CONFIG request: the reply (command SET_CONFIG) carries the three timeouts. */
  public static void encodeGetConfig(MessageBuilder b, int familyId, int seq) {
    b.begin(familyId, Netlink.NLM_F_REQUEST | Netlink.NLM_F_ACK, seq)
        .genlHeader(Ipvs.CMD_GET_CONFIG, Ipvs.VERSION)
        .end();
  }

  /**
   * A SET_CONFIG request with only the non-zero timeouts: the kernel starts from the timeouts in
   * force and replaces those whose attribute is present (ip_vs_genl_set_config).
   */
  public static void encodeSetConfig(MessageBuilder b, int familyId, int seq, Timeouts t) {
    b.begin(familyId, Netlink.NLM_F_REQUEST | Netlink.NLM_F_ACK, seq)
        .genlHeader(Ipvs.CMD_SET_CONFIG, Ipvs.VERSION);
    if (t.tcp() != 0) {
      b.putU32(Ipvs.CMD_ATTR_TIMEOUT_TCP, t.tcp());
    }
    if (t.tcpFin() != 0) {
      b.putU32(Ipvs.CMD_ATTR_TIMEOUT_TCP_FIN, t.tcpFin());
    }
    if (t.udp() != 0) {
      b.putU32(Ipvs.CMD_ATTR_TIMEOUT_UDP, t.udp());
    }
    b.end();
  }

  /** The timeouts in a GET_CONFIG reply (absent ones read as 0: the protocol is not built in). */
  public static Timeouts decodeTimeouts(Attributes a) {
    try {
      return new Timeouts(
          a.u32(Ipvs.CMD_ATTR_TIMEOUT_TCP, 0),
          a.u32(Ipvs.CMD_ATTR_TIMEOUT_TCP_FIN, 0),
          a.u32(Ipvs.CMD_ATTR_TIMEOUT_UDP, 0));
    } catch (IllegalArgumentException e) {
      // A u32 past 2^31 - 1 seconds (Jazzer found it): not a timeout the table can hold.
      throw new MalformedMessageException("timeouts: " + e.getMessage());
    }
  }

  /**
   * A NEW_DAEMON request: state, interface and sync id always (the kernel refuses the request
   * without them), the other attributes only when set, so the kernel applies its own defaults
   * (ip_vs_genl_new_daemon, start_sync_thread), as keepalived's libipvs does.
   */
  public static void encodeNewDaemon(MessageBuilder b, int familyId, int seq, SyncDaemon d) {
    b.begin(familyId, Netlink.NLM_F_REQUEST | Netlink.NLM_F_ACK, seq)
        .genlHeader(Ipvs.CMD_NEW_DAEMON, Ipvs.VERSION);
    int n = b.beginNested(Ipvs.CMD_ATTR_DAEMON);
    b.putU32(Ipvs.DAEMON_ATTR_STATE, d.role().state());
    b.putString(Ipvs.DAEMON_ATTR_MCAST_IFN, d.interfaceName());
    b.putU32(Ipvs.DAEMON_ATTR_SYNC_ID, d.syncId());
    if (d.maxLen() != 0) {
      b.putU16(Ipvs.DAEMON_ATTR_SYNC_MAXLEN, d.maxLen());
    }
    if (d.group() instanceof Inet6Address) {
      b.putBytes(Ipvs.DAEMON_ATTR_MCAST_GROUP6, d.group().getAddress());
    } else if (d.group() != null) {
      // nla_get_in_addr: the four address bytes as they are (network order).
      b.putBytes(Ipvs.DAEMON_ATTR_MCAST_GROUP, d.group().getAddress());
    }
    if (d.port() != 0) {
      b.putU16(Ipvs.DAEMON_ATTR_MCAST_PORT, d.port());
    }
    if (d.ttl() != 0) {
      b.putU8(Ipvs.DAEMON_ATTR_MCAST_TTL, d.ttl());
    }
    b.endNested(n);
    b.end();
  }

  /** A DEL_DAEMON request: the kernel reads only the state (ip_vs_genl_del_daemon). */
  public static void encodeDelDaemon(
      MessageBuilder b, int familyId, int seq, SyncDaemon.Role role) {
    b.begin(familyId, Netlink.NLM_F_REQUEST | Netlink.NLM_F_ACK, seq)
        .genlHeader(Ipvs.CMD_DEL_DAEMON, Ipvs.VERSION);
    int n = b.beginNested(Ipvs.CMD_ATTR_DAEMON);
    b.putU32(Ipvs.DAEMON_ATTR_STATE, role.state());
    b.endNested(n);
    b.end();
  }

  /** A GET_DAEMON dump request: one NEW_DAEMON reply per running daemon, master first. */
  public static void encodeDaemonDump(MessageBuilder b, int familyId, int seq) {
    b.begin(familyId, Netlink.NLM_F_REQUEST | Netlink.NLM_F_DUMP, seq)
        .genlHeader(Ipvs.CMD_GET_DAEMON, Ipvs.VERSION)
        .end();
  }

  /**
   * The daemon in a GET_DAEMON reply's attributes (its DAEMON nest).
   *
   * @throws MalformedMessageException for anything that is not a daemon the kernel could run (a
   *     missing state or interface, an unknown state, a sync id past 255, a group that is not
   *     multicast, a short attribute), never another exception
   */
  public static SyncDaemon decodeDaemon(Attributes genl) {
    try {
      Attributes d = genl.nested(Ipvs.CMD_ATTR_DAEMON);
      InetAddress group = null;
      if (d.has(Ipvs.DAEMON_ATTR_MCAST_GROUP6)) {
        group = address(AddressFamily.INET6, d.bytes(Ipvs.DAEMON_ATTR_MCAST_GROUP6));
      } else if (d.has(Ipvs.DAEMON_ATTR_MCAST_GROUP)) {
        group = address(AddressFamily.INET, d.bytes(Ipvs.DAEMON_ATTR_MCAST_GROUP));
      }
      if (!d.has(Ipvs.DAEMON_ATTR_MCAST_IFN)) {
        throw new MalformedMessageException("no interface");
      }
      return new SyncDaemon(
          SyncDaemon.Role.ofState(d.u32(Ipvs.DAEMON_ATTR_STATE)),
          d.string(Ipvs.DAEMON_ATTR_MCAST_IFN),
          d.u32(Ipvs.DAEMON_ATTR_SYNC_ID, 0),
          d.u16(Ipvs.DAEMON_ATTR_SYNC_MAXLEN, 0),
          d.u16(Ipvs.DAEMON_ATTR_MCAST_PORT, 0),
          d.has(Ipvs.DAEMON_ATTR_MCAST_TTL) ? d.u8(Ipvs.DAEMON_ATTR_MCAST_TTL) : 0,
          group);
    } catch (IllegalArgumentException | IndexOutOfBoundsException | MalformedMessageException e) {
      throw new MalformedMessageException("sync daemon: " + e.getMessage());
    }
  }

  private static void putServiceKey(MessageBuilder b, ServiceKey k) {
    int n = b.beginNested(Ipvs.CMD_ATTR_SERVICE);
    putServiceId(b, k);
    b.endNested(n);
  }

  private static void putServiceId(MessageBuilder b, ServiceKey k) {
    b.putU16(Ipvs.SVC_ATTR_AF, k.family().number());
    if (k.isFwmark()) {
      b.putU32(Ipvs.SVC_ATTR_FWMARK, k.fwmark());
    } else {
      // Not a fwmark service, so the key's constructor required both.
      b.putU16(Ipvs.SVC_ATTR_PROTOCOL, Objects.requireNonNull(k.protocol()).number());
      b.putBytes(Ipvs.SVC_ATTR_ADDR, addr16(Objects.requireNonNull(k.address())));
      b.putBe16(Ipvs.SVC_ATTR_PORT, k.port());
    }
  }

  private static void putService(MessageBuilder b, Service s) {
    int n = b.beginNested(Ipvs.CMD_ATTR_SERVICE);
    putServiceId(b, s.key());
    b.putString(Ipvs.SVC_ATTR_SCHED_NAME, s.scheduler());
    if (s.persistenceEngine() != null) {
      b.putString(Ipvs.SVC_ATTR_PE_NAME, s.persistenceEngine());
    }
    ByteBuffer flags = ByteBuffer.allocate(8).order(ByteOrder.nativeOrder());
    flags.putInt(ServiceFlag.toBits(s.flags())).putInt(0xffffffff);
    b.putBytes(Ipvs.SVC_ATTR_FLAGS, flags.array());
    b.putU32(Ipvs.SVC_ATTR_TIMEOUT, s.timeout());
    if (s.key().family() == AddressFamily.INET6) {
      b.putU32(Ipvs.SVC_ATTR_NETMASK, s.netmask());
    } else {
      b.putBe32(Ipvs.SVC_ATTR_NETMASK, prefixToMask(s.netmask()));
    }
    b.endNested(n);
  }

  private static void putDestKey(MessageBuilder b, DestKey d) {
    b.putU16(Ipvs.DEST_ATTR_ADDR_FAMILY, AddressFamily.of(d.address()).number());
    b.putBytes(Ipvs.DEST_ATTR_ADDR, addr16(d.address()));
    b.putBe16(Ipvs.DEST_ATTR_PORT, d.port());
  }

  private static void putDest(MessageBuilder b, Dest d) {
    int n = b.beginNested(Ipvs.CMD_ATTR_DEST);
    putDestKey(b, d.key());
    b.putU32(Ipvs.DEST_ATTR_FWD_METHOD, d.forwarding().value());
    b.putU32(Ipvs.DEST_ATTR_WEIGHT, d.weight());
    if (d.forwarding() == ForwardingMethod.TUNNEL) {
      Tunnel t = d.tunnel() == null ? Tunnel.IPIP : d.tunnel();
      b.putU8(Ipvs.DEST_ATTR_TUN_TYPE, t.type().value());
      if (t.type() == Tunnel.Type.GUE) {
        b.putBe16(Ipvs.DEST_ATTR_TUN_PORT, t.port());
      }
      if (t.type() != Tunnel.Type.IPIP) {
        b.putU16(Ipvs.DEST_ATTR_TUN_FLAGS, t.checksum().value());
      }
    }
    b.putU32(Ipvs.DEST_ATTR_U_THRESH, d.upperThreshold());
    b.putU32(Ipvs.DEST_ATTR_L_THRESH, d.lowerThreshold());
    b.endNested(n);
  }

  /** The IPv4 mask of a prefix length, as an int whose big-endian bytes are the mask. */
  static int prefixToMask(int prefix) {
    return prefix == 0 ? 0 : (int) (0xffffffffL << (32 - prefix));
  }

  /** The prefix length of a contiguous mask (leading ones). */
  static int maskToPrefix(int mask) {
    return Integer.numberOfLeadingZeros(~mask);
  }

  static byte[] addr16(InetAddress a) {
    return Arrays.copyOf(a.getAddress(), 16);
  }

  /**
   * The service (identity and settings) in a GET_SERVICE reply's SERVICE nest.
   *
   * @throws MalformedMessageException for anything that is not a service Fairway can represent (an
   *     unknown family, protocol or forwarding method, a value out of range), never another
   *     exception: a reply comes from outside the JVM
   */
  public static Service decodeService(Attributes svc) {
    try {
      return service(svc);
    } catch (IllegalArgumentException | IndexOutOfBoundsException e) {
      throw new MalformedMessageException("service: " + e.getMessage());
    }
  }

  private static Service service(Attributes svc) {
    AddressFamily af = AddressFamily.ofNumber(svc.u16(Ipvs.SVC_ATTR_AF));
    ServiceKey key;
    int fwmark = svc.u32(Ipvs.SVC_ATTR_FWMARK, 0);
    if (fwmark != 0) {
      key = ServiceKey.fwmark(af, fwmark);
    } else {
      key =
          ServiceKey.of(
              Protocol.ofNumber(svc.u16(Ipvs.SVC_ATTR_PROTOCOL)),
              address(af, svc.bytes(Ipvs.SVC_ATTR_ADDR)),
              svc.be16(Ipvs.SVC_ATTR_PORT));
    }
    int flags = svc.has(Ipvs.SVC_ATTR_FLAGS) ? svc.u32(Ipvs.SVC_ATTR_FLAGS) : 0;
    int netmask =
        af == AddressFamily.INET6
            ? svc.u32(Ipvs.SVC_ATTR_NETMASK, 128)
            : (svc.has(Ipvs.SVC_ATTR_NETMASK) ? maskToPrefix(svc.be32(Ipvs.SVC_ATTR_NETMASK)) : 32);
    return new Service(
        key,
        svc.optionalString(Ipvs.SVC_ATTR_SCHED_NAME).orElse("none"),
        ServiceFlag.fromBits(flags),
        svc.u32(Ipvs.SVC_ATTR_TIMEOUT, 0),
        netmask,
        svc.optionalString(Ipvs.SVC_ATTR_PE_NAME).filter(s -> !s.isEmpty()).orElse(null));
  }

  /**
   * A destination in a GET_DEST reply's DEST nest; {@code serviceFamily} when ADDR_FAMILY is
   * absent.
   *
   * @throws MalformedMessageException as {@link #decodeService}
   */
  public static DestEntry decodeDest(Attributes d, AddressFamily serviceFamily) {
    try {
      return dest(d, serviceFamily);
    } catch (IllegalArgumentException | IndexOutOfBoundsException e) {
      throw new MalformedMessageException("destination: " + e.getMessage());
    }
  }

  private static DestEntry dest(Attributes d, AddressFamily serviceFamily) {
    AddressFamily af =
        d.has(Ipvs.DEST_ATTR_ADDR_FAMILY)
            ? AddressFamily.ofNumber(d.u16(Ipvs.DEST_ATTR_ADDR_FAMILY))
            : serviceFamily;
    ForwardingMethod fwd = ForwardingMethod.ofValue(d.u32(Ipvs.DEST_ATTR_FWD_METHOD));
    Tunnel tunnel = null;
    if (fwd == ForwardingMethod.TUNNEL && d.has(Ipvs.DEST_ATTR_TUN_TYPE)) {
      Tunnel.Type type = Tunnel.Type.ofValue(d.u8(Ipvs.DEST_ATTR_TUN_TYPE));
      int port = d.has(Ipvs.DEST_ATTR_TUN_PORT) ? d.be16(Ipvs.DEST_ATTR_TUN_PORT) : 0;
      int csum = d.has(Ipvs.DEST_ATTR_TUN_FLAGS) ? d.u16(Ipvs.DEST_ATTR_TUN_FLAGS) : 0;
      Tunnel t =
          new Tunnel(type, type == Tunnel.Type.GUE ? port : 0, Tunnel.Checksum.ofValue(csum));
      // Plain IPIP is what a TUNNEL destination without tunnel settings gets: read it back as
      // null so what was written compares equal to what is read.
      tunnel = t.equals(Tunnel.IPIP) ? null : t;
    }
    Dest dest =
        new Dest(
            address(af, d.bytes(Ipvs.DEST_ATTR_ADDR)),
            d.be16(Ipvs.DEST_ATTR_PORT),
            fwd,
            d.u32(Ipvs.DEST_ATTR_WEIGHT),
            d.u32(Ipvs.DEST_ATTR_U_THRESH, 0),
            d.u32(Ipvs.DEST_ATTR_L_THRESH, 0),
            tunnel);
    return new DestEntry(
        dest,
        d.u32(Ipvs.DEST_ATTR_ACTIVE_CONNS, 0),
        d.u32(Ipvs.DEST_ATTR_INACT_CONNS, 0),
        d.u32(Ipvs.DEST_ATTR_PERSIST_CONNS, 0),
        stats(d, Ipvs.DEST_ATTR_STATS64, Ipvs.DEST_ATTR_STATS));
  }

  /** The counters of a service nest. */
  public static Stats serviceStats(Attributes svc) {
    return stats(svc, Ipvs.SVC_ATTR_STATS64, Ipvs.SVC_ATTR_STATS);
  }

  private static Stats stats(Attributes parent, int stats64, int stats32) {
    if (parent.has(stats64)) {
      Attributes s = parent.nested(stats64);
      return new Stats(
          u64(s, Ipvs.STATS_ATTR_CONNS),
          u64(s, Ipvs.STATS_ATTR_INPKTS),
          u64(s, Ipvs.STATS_ATTR_OUTPKTS),
          u64(s, Ipvs.STATS_ATTR_INBYTES),
          u64(s, Ipvs.STATS_ATTR_OUTBYTES),
          u64(s, Ipvs.STATS_ATTR_CPS),
          u64(s, Ipvs.STATS_ATTR_INPPS),
          u64(s, Ipvs.STATS_ATTR_OUTPPS),
          u64(s, Ipvs.STATS_ATTR_INBPS),
          u64(s, Ipvs.STATS_ATTR_OUTBPS));
    }
    if (parent.has(stats32)) {
      Attributes s = parent.nested(stats32);
      return new Stats(
          u32(s, Ipvs.STATS_ATTR_CONNS),
          u32(s, Ipvs.STATS_ATTR_INPKTS),
          u32(s, Ipvs.STATS_ATTR_OUTPKTS),
          u64(s, Ipvs.STATS_ATTR_INBYTES),
          u64(s, Ipvs.STATS_ATTR_OUTBYTES),
          u32(s, Ipvs.STATS_ATTR_CPS),
          u32(s, Ipvs.STATS_ATTR_INPPS),
          u32(s, Ipvs.STATS_ATTR_OUTPPS),
          u32(s, Ipvs.STATS_ATTR_INBPS),
          u32(s, Ipvs.STATS_ATTR_OUTBPS));
    }
    return Stats.ZERO;
  }

  private static long u64(Attributes a, int type) {
    return a.has(type) ? a.u64(type) : 0;
  }

  private static long u32(Attributes a, int type) {
    return a.has(type) ? Integer.toUnsignedLong(a.u32(type)) : 0;
  }

  static InetAddress address(AddressFamily af, byte[] raw) {
    int len = af == AddressFamily.INET6 ? 16 : 4;
    if (raw.length < len) {
      throw new MalformedMessageException("address of " + raw.length + " bytes for " + af);
    }
    try {
      // Inet6Address explicitly: InetAddress.getByAddress would turn ::ffff:a.b.c.d into IPv4.
      return len == 16
          ? Inet6Address.getByAddress(null, Arrays.copyOf(raw, 16), -1)
          : InetAddress.getByAddress(Arrays.copyOf(raw, 4));
    } catch (UnknownHostException e) {
      throw new MalformedMessageException("bad address: " + e.getMessage());
    }
  }
}
