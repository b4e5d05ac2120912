package io.fairway.check.checker;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import io.fairway.os.LibC;
import io.netty.channel.unix.FileDescriptor;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The half-open TCP_CHECK's raw IPv4 socket: {@code IP_HDRINCL}, a classic BPF filter that keeps
 * only answers to the reserved source port, a large receive buffer, batched reads with {@code
 * recvmmsg} and SYNs written header and all. {@link SynProber} says why it is this shape.
 *
 * <p>Why apart from the prober: this is the part that talks to the kernel through JNA, byte offsets
 * of C structures and all; the prober, which matches answers to probes and times them, then reads
 * as plain Java. Confined to the prober's event loop, as the prober is.
 */
final class RawTcpSocket {
  private static final int AF_INET = 2;
  private static final int IPPROTO_IP = 0;
  static final int IPPROTO_TCP = 6;
  private static final int IP_HDRINCL = 3;
  private static final int SO_ATTACH_FILTER = 26;
  private static final int RCVBUF = 4 << 20;
  private static final int EPERM = 1;

  static final int TCP_SYN = 0x02;
  static final int TCP_RST = 0x04;
  static final int TCP_ACK = 0x10;

  /** Datagrams per recvmmsg, and bytes kept of each: an IP header with options and a TCP header. */
  static final int BATCH = 64;

  private static final int SLOT = 128;
  private static final int MMSGHDR = 64;
  private static final int IOVEC = 16;

  /** IP and TCP header of a SYN without options. */
  private static final int SYN_LENGTH = 40;

  /** libc by direct mapping: these run thousands of times a second. */
  private final int port;

  private final FileDescriptor raw;

  private final Memory out = new Memory(SYN_LENGTH);
  private final ByteBuffer outBuf = network(out, SYN_LENGTH);
  private final Memory to = new Memory(16);
  private final ByteBuffer toBuf = network(to, 16);
  private final Memory in = new Memory((long) BATCH * SLOT);
  private final ByteBuffer inBuf = network(in, BATCH * SLOT);
  private final Memory msgs = new Memory((long) BATCH * MMSGHDR);
  private final ByteBuffer msgsBuf =
      msgs.getByteBuffer(0, (long) BATCH * MMSGHDR).order(ByteOrder.nativeOrder());
  private final Memory iovecs = new Memory((long) BATCH * IOVEC);

  /**
   * Opens the raw socket for answers to {@code port}, the reserved source port.
   *
   * @throws SynProber.Unavailable if the kernel refuses the raw socket (no CAP_NET_RAW) or its
   *     filter
   */
  RawTcpSocket(int port) throws SynProber.Unavailable {
    this.port = port;
    int fd;
    try {
      fd =
          LibC.Quiet.socket(
              AF_INET, LibC.SOCK_RAW | LibC.SOCK_NONBLOCK | LibC.SOCK_CLOEXEC, IPPROTO_TCP);
    } catch (LinkageError e) {
      throw new SynProber.Unavailable("no raw socket: needs Linux libc (" + e.getMessage() + ")");
    }
    if (fd < 0) {
      int errno = Native.getLastError();
      throw new SynProber.Unavailable(
          "no raw socket: "
              + SocketOptions.reason(errno)
              + (errno == EPERM ? " (needs CAP_NET_RAW)" : ""));
    }
    raw = new FileDescriptor(fd);
    try {
      configure();
    } catch (SynProber.Unavailable e) {
      close();
      throw e;
    }
    // Segments that arrived between socket() and the filter may be anything: drop them.
    while (receive() == BATCH) {
      // keep draining
    }
    prepareBatch();
    toBuf.put(0, (byte) AF_INET); // sa_family_t is in host order: little-endian x86_64/aarch64
    toBuf.put(1, (byte) 0);
  }

  private void configure() throws SynProber.Unavailable {
    Memory one = new Memory(4);
    one.setInt(0, 1);
    setOption(IPPROTO_IP, IP_HDRINCL, one, 4, "IP_HDRINCL");
    attachFilter();
    // Answers to a tick's worth of SYNs can arrive together; the default buffer holds a few
    // hundred. Beyond rmem_max only as root (SO_RCVBUFFORCE); a smaller buffer still works.
    Memory size = new Memory(4);
    size.setInt(0, RCVBUF);
    if (LibC.Quiet.setsockopt(raw.intValue(), LibC.SOL_SOCKET, LibC.SO_RCVBUFFORCE, size, 4) < 0) {
      LibC.Quiet.setsockopt(raw.intValue(), LibC.SOL_SOCKET, LibC.SO_RCVBUF, size, 4);
    }
  }

  /** A view of {@code m} in network order (JNA's views are in native order). */
  private static ByteBuffer network(Memory m, int length) {
    return m.getByteBuffer(0, length).order(ByteOrder.BIG_ENDIAN);
  }

  FileDescriptor fd() {
    return raw;
  }

  private void setOption(int level, int name, Pointer value, int len, String what)
      throws SynProber.Unavailable {
    if (LibC.Quiet.setsockopt(raw.intValue(), level, name, value, len) < 0) {
      throw new SynProber.Unavailable(what + ": " + SocketOptions.reason(Native.getLastError()));
    }
  }

  /**
   * Keeps TCP segments to the reserved port that carry ACK or RST: the answers to our SYNs (and
   * nothing the kernel sends itself, which carries our port as its source).
   */
  private void attachFilter() throws SynProber.Unavailable {
    int[][] program = {
      // ldxb 4*([0]&0xf): X = IP header length
      {0xb1, 0, 0, 0},
      // ldh [x+2]: destination port
      {0x48, 0, 0, 2},
      // jeq #port, next, drop
      {0x15, 0, 3, port},
      // ldb [x+13]: flags
      {0x50, 0, 0, 13},
      // jset #(ACK|RST), accept, drop
      {0x45, 0, 1, TCP_ACK | TCP_RST},
      // ret #SLOT: accept (no more than we read)
      {0x06, 0, 0, SLOT},
      // ret #0: drop
      {0x06, 0, 0, 0},
    };
    Memory filter = new Memory(8L * program.length);
    ByteBuffer f = filter.getByteBuffer(0, 8L * program.length).order(ByteOrder.nativeOrder());
    for (int i = 0; i < program.length; i++) {
      f.putShort(i * 8, (short) program[i][0]);
      f.put(i * 8 + 2, (byte) program[i][1]);
      f.put(i * 8 + 3, (byte) program[i][2]);
      f.putInt(i * 8 + 4, program[i][3]);
    }
    // struct sock_fprog { unsigned short len; struct sock_filter *filter; }
    Memory fprog = new Memory(16);
    fprog.clear();
    fprog.setShort(0, (short) program.length);
    fprog.setPointer(8, filter);
    setOption(LibC.SOL_SOCKET, SO_ATTACH_FILTER, fprog, 16, "SO_ATTACH_FILTER");
  }

  /** One mmsghdr per slot, each with one iovec over its slot of {@link #in}. */
  private void prepareBatch() {
    msgs.clear();
    ByteBuffer iov = iovecs.getByteBuffer(0, (long) BATCH * IOVEC).order(ByteOrder.nativeOrder());
    ByteBuffer m = msgsBuf;
    long inAddress = Pointer.nativeValue(in);
    long iovAddress = Pointer.nativeValue(iovecs);
    for (int i = 0; i < BATCH; i++) {
      iov.putLong(i * IOVEC, inAddress + (long) i * SLOT);
      iov.putLong(i * IOVEC + 8, SLOT);
      // struct msghdr: name, namelen, iov, iovlen, control, controllen, flags
      m.putLong(i * MMSGHDR + 16, iovAddress + (long) i * IOVEC);
      m.putLong(i * MMSGHDR + 24, 1);
    }
  }

  /**
   * Reads one batch; returns how many datagrams it got (0 when the queue is empty, or when the read
   * returned a pending ICMP error instead, see {@link #sendSyn}: the error is cleared by it, and
   * level-triggered epoll reports the queue again).
   */
  int receive() {
    int n = LibC.Quiet.recvmmsg(raw.intValue(), msgs, BATCH, LibC.MSG_DONTWAIT, null);
    return Math.max(n, 0);
  }

  /** The datagrams the last {@link #receive} read, in network order, one per {@link #offset}. */
  ByteBuffer received() {
    return inBuf;
  }

  /** Where the {@code i}th datagram of the last batch starts in {@link #received}. */
  static int offset(int i) {
    return i * SLOT;
  }

  /** How many bytes of the {@code i}th datagram of the last batch were kept. */
  int length(int i) {
    return Math.min(msgsBuf.getInt(i * MMSGHDR + 56), SLOT);
  }

  /**
   * Writes and sends a SYN from {@code src} and the reserved port to {@code dst:dport} with
   * sequence number {@code isn}; returns 0 or the errno of a failed send.
   */
  int sendSyn(int src, int dst, int dport, int isn) {
    ByteBuffer b = outBuf; // big-endian, network order
    b.putInt(0, 0x4500_0000 | SYN_LENGTH); // version 4, IHL 5, total length
    b.putInt(4, 0x0000_4000); // id 0 (the kernel picks one), DF
    b.putInt(8, (64 << 24) | (IPPROTO_TCP << 16)); // TTL 64, TCP, checksum 0 (the kernel's)
    b.putInt(12, src);
    b.putInt(16, dst);
    b.putInt(20, (port << 16) | dport);
    b.putInt(24, isn);
    b.putInt(28, 0);
    b.putInt(32, (5 << 28) | (TCP_SYN << 16) | 64240); // data offset 5, SYN, window
    b.putInt(36, 0); // checksum 0 while summing, urgent pointer 0
    b.putShort(36, checksum(b, src, dst));
    toBuf.putShort(2, (short) dport);
    toBuf.putInt(4, dst);
    long sent = LibC.Quiet.sendto(raw.intValue(), out, SYN_LENGTH, 0, to, 16);
    if (sent != SYN_LENGTH) {
      // A raw TCP socket is told of every ICMP error about any TCP segment of the host (an
      // unreachable, a "fragmentation needed" for someone else's connection): the kernel keeps it
      // as a pending socket error and fails the next send with it, once. Not this probe's error.
      sent = LibC.Quiet.sendto(raw.intValue(), out, SYN_LENGTH, 0, to, 16);
    }
    return sent == SYN_LENGTH ? 0 : Native.getLastError();
  }

  /** The TCP checksum over the pseudo-header and the 20-byte header at offset 20. */
  static short checksum(ByteBuffer b, int src, int dst) {
    long sum =
        (long) (src >>> 16) + (src & 0xffff) + (dst >>> 16) + (dst & 0xffff) + IPPROTO_TCP + 20;
    for (int i = 20; i < SYN_LENGTH; i += 2) {
      sum += b.getShort(i) & 0xffff;
    }
    while ((sum >>> 16) != 0) {
      sum = (sum & 0xffff) + (sum >>> 16);
    }
    return (short) ~sum;
  }

  void close() {
    try {
      raw.close();
    } catch (IOException ignored) {
      // close(2) of a descriptor we own fails only on EINTR/EIO; it is released either way.
    }
  }
}
