package io.fairway.vrrp.io;

import com.sun.jna.LastErrorException;
import com.sun.jna.Memory;
import io.fairway.os.LibC;
import io.fairway.vrrp.packet.AdvertCodec;
import io.fairway.vrrp.packet.Ipv4Datagram;
import io.fairway.vrrp.packet.MalformedAdvertException;
import java.io.Closeable;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import org.jspecify.annotations.Nullable;

/**
 * A raw IP protocol 112 socket on one interface and family: joins the VRRP multicast group, sends
 * with TTL / hop limit 255, and returns each received message with its source, destination and TTL
 * so the caller can drop what did not come from the link.
 *
 * <p>IPv4 is sent with our own IP header (IP_HDRINCL) so the source address, which the v3 checksum
 * covers, is the one we chose; IPv6 lets the kernel compute and verify the checksum (IPV6_CHECKSUM
 * at offset 6, as keepalived) and reads the hop limit and destination from ancillary data.
 */
public final class VrrpSocket implements Closeable {
  /**
   * A received message; {@code payloadOffset/Length} locate the VRRP message in {@code data}. The
   * destination is null when an IPv6 message came without its packet info. A class rather than a
   * record: a record would compare {@code data} by reference.
   */
  public static final class Received {
    private final InetAddress source;
    private final @Nullable InetAddress destination;
    private final int ttl;
    private final byte[] data;
    private final int payloadOffset;
    private final int payloadLength;

    public Received(
        InetAddress source,
        @Nullable InetAddress destination,
        int ttl,
        byte[] data,
        int payloadOffset,
        int payloadLength) {
      this.source = source;
      this.destination = destination;
      this.ttl = ttl;
      this.data = data;
      this.payloadOffset = payloadOffset;
      this.payloadLength = payloadLength;
    }

    public InetAddress source() {
      return source;
    }

    public @Nullable InetAddress destination() {
      return destination;
    }

    public int ttl() {
      return ttl;
    }

    /** The datagram as read, shared with the socket's caller: not to be modified. */
    public byte[] data() {
      return data;
    }

    public int payloadOffset() {
      return payloadOffset;
    }

    public int payloadLength() {
      return payloadLength;
    }
  }

  private final int fd;
  private final boolean v4;
  private final int ifindex;
  private final Memory msg = new Memory(56);
  private final Memory iov = new Memory(16);
  private final Memory buf = new Memory(65536);
  private final Memory name = new Memory(28);
  private final Memory control = new Memory(256);
  private volatile boolean closed;
  private volatile long kernelDrops;

  private VrrpSocket(int fd, boolean v4, int ifindex) {
    this.fd = fd;
    this.v4 = v4;
    this.ifindex = ifindex;
  }

  /** Opens the socket on {@code ifname}, joined to {@code group} (null for unicast only). */
  public static VrrpSocket open(String ifname, boolean ipv4, InetAddress group) throws IOException {
    int ifindex = LibC.if_nametoindex(ifname);
    if (ifindex == 0) {
      throw new IOException("interface " + ifname + " does not exist");
    }
    int fd;
    try {
      fd =
          LibC.socket(
              ipv4 ? Sys.AF_INET : Sys.AF_INET6,
              LibC.SOCK_RAW | LibC.SOCK_CLOEXEC,
              AdvertCodec.PROTOCOL);
    } catch (LastErrorException e) {
      throw new IOException(
          "raw socket for VRRP: "
              + errno(e)
              + (e.getErrorCode() == 1 ? " (needs CAP_NET_RAW)" : ""));
    }
    VrrpSocket s = new VrrpSocket(fd, ipv4, ifindex);
    try {
      Sys.bindToDevice(fd, ifname);
      Sys.receiveTimeout(fd, 200);
      // Each packet then carries the socket's drop count: floods that overran it are counted.
      Sys.setInt(fd, LibC.SOL_SOCKET, Sys.SO_RXQ_OVFL, 1);
      if (ipv4) {
        Sys.setInt(fd, Sys.IPPROTO_IP, Sys.IP_HDRINCL, 1);
        Sys.setInt(fd, Sys.IPPROTO_IP, Sys.IP_MULTICAST_LOOP, 0);
        byte[] mreqn = mreqn(group, ifindex);
        LibC.setsockopt(fd, Sys.IPPROTO_IP, Sys.IP_MULTICAST_IF, mreqn, mreqn.length);
        if (group != null) {
          LibC.setsockopt(fd, Sys.IPPROTO_IP, Sys.IP_ADD_MEMBERSHIP, mreqn, mreqn.length);
        }
      } else {
        Sys.setInt(fd, Sys.IPPROTO_IPV6, Sys.IPV6_CHECKSUM, 6);
        Sys.setInt(fd, Sys.IPPROTO_IPV6, Sys.IPV6_MULTICAST_HOPS, 255);
        Sys.setInt(fd, Sys.IPPROTO_IPV6, Sys.IPV6_UNICAST_HOPS, 255);
        Sys.setInt(fd, Sys.IPPROTO_IPV6, Sys.IPV6_MULTICAST_LOOP, 0);
        Sys.setInt(fd, Sys.IPPROTO_IPV6, Sys.IPV6_MULTICAST_IF, ifindex);
        Sys.setInt(fd, Sys.IPPROTO_IPV6, Sys.IPV6_RECVHOPLIMIT, 1);
        Sys.setInt(fd, Sys.IPPROTO_IPV6, Sys.IPV6_RECVPKTINFO, 1);
        if (group != null) {
          byte[] mreq = new byte[20];
          System.arraycopy(group.getAddress(), 0, mreq, 0, 16);
          System.arraycopy(Sys.intOpt(ifindex), 0, mreq, 16, 4);
          LibC.setsockopt(fd, Sys.IPPROTO_IPV6, Sys.IPV6_ADD_MEMBERSHIP, mreq, mreq.length);
        }
      }
    } catch (LastErrorException e) {
      s.close();
      throw new IOException("configuring the VRRP socket on " + ifname + ": " + errno(e));
    }
    return s;
  }

  private static byte[] mreqn(InetAddress group, int ifindex) {
    byte[] m = new byte[12];
    if (group != null) {
      System.arraycopy(group.getAddress(), 0, m, 0, 4);
    }
    System.arraycopy(Sys.intOpt(ifindex), 0, m, 8, 4);
    return m;
  }

  static String errno(LastErrorException e) {
    return io.fairway.os.Errno.name(e.getErrorCode());
  }

  /** Sends one VRRP message from {@code source} to {@code destination}. */
  public void send(byte[] vrrp, InetAddress source, InetAddress destination) throws IOException {
    if (closed) {
      throw new IOException("the VRRP socket is closed");
    }
    byte[] packet = vrrp;
    if (v4) {
      packet = new byte[20 + vrrp.length];
      packet[0] = 0x45;
      packet[1] = (byte) 0xc0; // DSCP CS6 (network control), as keepalived
      packet[2] = (byte) (packet.length >> 8);
      packet[3] = (byte) packet.length;
      packet[8] = (byte) 255;
      packet[9] = (byte) AdvertCodec.PROTOCOL;
      System.arraycopy(source.getAddress(), 0, packet, 12, 4);
      System.arraycopy(destination.getAddress(), 0, packet, 16, 4);
      System.arraycopy(vrrp, 0, packet, 20, vrrp.length);
      // The kernel fills in the id and the header checksum with IP_HDRINCL.
    }
    byte[] to = Sys.sockaddr(destination, ifindex);
    try {
      LibC.sendto(fd, packet, packet.length, 0, to, to.length);
    } catch (LastErrorException e) {
      throw new IOException(
          "sending a VRRP advert to " + destination.getHostAddress() + ": " + errno(e));
    }
  }

  /**
   * Waits up to 200 ms for one message; null on timeout or after {@link #close}.
   *
   * @throws MalformedAdvertException for an IPv4 packet whose header does not parse
   */
  public @Nullable Received receive() throws IOException, MalformedAdvertException {
    if (closed) {
      return null;
    }
    iov.setPointer(0, buf);
    iov.setLong(8, buf.size());
    msg.clear();
    msg.setPointer(0, name);
    msg.setInt(8, (int) name.size());
    msg.setPointer(16, iov);
    msg.setLong(24, 1);
    msg.setPointer(32, control);
    msg.setLong(40, control.size());
    long n = LibC.Quiet.recvmsg(fd, msg, 0);
    if (n < 0) {
      int errno = com.sun.jna.Native.getLastError();
      if (errno == Sys.EAGAIN || errno == Sys.EINTR || closed) {
        return null;
      }
      throw new IOException("receiving VRRP: " + io.fairway.os.Errno.name(errno));
    }
    byte[] data = buf.getByteArray(0, (int) n);
    long clen = msg.getLong(40);
    if (v4) {
      control(clen);
      Ipv4Datagram d = Ipv4Datagram.parse(data, data.length);
      return new Received(
          d.source(), d.destination(), d.ttl(), data, d.payloadOffset(), d.payloadLength());
    }
    InetAddress src = address(name.getByteArray(8, 16));
    Ancillary a = control(clen);
    return new Received(src, a.destination(), a.hops(), data, 0, data.length);
  }

  /** What the IPv6 control messages said (the hop limit is -1 when absent). */
  private record Ancillary(int hops, @Nullable InetAddress destination) {}

  /** Reads the control messages of the last receive; records the socket's drop count. */
  private Ancillary control(long clen) {
    int hops = -1;
    @Nullable InetAddress dst = null;
    long off = 0;
    while (off + 16 <= clen) {
      long len = control.getLong(off);
      int level = control.getInt(off + 8);
      int type = control.getInt(off + 12);
      if (len < 16 || off + len > clen) {
        break;
      }
      if (level == Sys.IPPROTO_IPV6 && type == Sys.IPV6_HOPLIMIT) {
        hops = control.getInt(off + 16);
      } else if (level == Sys.IPPROTO_IPV6 && type == Sys.IPV6_PKTINFO) {
        dst = address(control.getByteArray(off + 16, 16));
      } else if (level == LibC.SOL_SOCKET && type == Sys.SO_RXQ_OVFL) {
        kernelDrops = Integer.toUnsignedLong(control.getInt(off + 16));
      }
      off += (len + 7) & ~7L;
    }
    return new Ancillary(hops, dst);
  }

  /**
   * Packets the kernel dropped from this socket because its receive queue was full, as the last
   * received packet told ({@code SO_RXQ_OVFL}: a 32-bit count that wraps); 0 until a packet after
   * the first drop arrives.
   */
  public long kernelDrops() {
    return kernelDrops;
  }

  private static InetAddress address(byte[] b) {
    try {
      return java.net.Inet6Address.getByAddress(null, b, -1);
    } catch (UnknownHostException e) {
      throw new AssertionError(e);
    }
  }

  public boolean ipv4() {
    return v4;
  }

  /**
   * Stops the socket. The descriptor itself is closed by the receiving thread when its current
   * receive returns (within 200 ms), so it is never reused under a blocked call.
   */
  @Override
  public void close() {
    closed = true;
  }

  /** True after {@link #close}: the receiving thread stops and releases the descriptor. */
  public boolean isClosed() {
    return closed;
  }

  /**
   * Closes the descriptor; only the receiving thread calls this, after {@link #receive} gave null.
   */
  public void release() {
    if (fdClosed.compareAndSet(false, true)) {
      LibC.close(fd);
    }
  }

  private final java.util.concurrent.atomic.AtomicBoolean fdClosed =
      new java.util.concurrent.atomic.AtomicBoolean();
}
