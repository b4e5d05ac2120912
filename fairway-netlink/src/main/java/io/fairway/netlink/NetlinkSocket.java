package io.fairway.netlink;

import com.sun.jna.LastErrorException;
import com.sun.jna.Memory;
import com.sun.jna.Platform;
import com.sun.jna.Pointer;
import io.fairway.os.LibC;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.jspecify.annotations.Nullable;

/**
 * A raw netlink socket. Blocking, with a receive timeout so a kernel that never answers becomes an
 * error instead of a hung daemon. Not thread-safe.
 */
public final class NetlinkSocket implements Closeable {
  /** errno values the socket layer reports. */
  static final int EAGAIN = 11;

  static final int EINTR = 4;

  private final int fd;
  private final ByteBuffer recvBuffer;
  private boolean closed;

  private NetlinkSocket(int fd, int recvBufferSize) {
    this.fd = fd;
    this.recvBuffer = ByteBuffer.allocateDirect(recvBufferSize).order(ByteOrder.nativeOrder());
  }

  /**
   * Opens and binds a netlink socket of the given protocol, with large kernel buffers (so a batch
   * of acks fits) and the given receive timeout.
   */
  public static NetlinkSocket open(int protocol, int kernelBufferBytes, int timeoutMillis)
      throws IOException {
    int fd;
    try {
      fd = LibC.socket(Netlink.AF_NETLINK, LibC.SOCK_RAW | LibC.SOCK_CLOEXEC, protocol);
    } catch (LastErrorException e) {
      throw new NetlinkException(e.getErrorCode(), "socket(AF_NETLINK) failed");
    }
    NetlinkSocket s = new NetlinkSocket(fd, 64 * 1024);
    try {
      byte[] addr = new byte[12];
      addr[0] = (byte) Netlink.AF_NETLINK; // sa_family (little end first on the hosts we run on)
      if (ByteOrder.nativeOrder() == ByteOrder.BIG_ENDIAN) {
        addr[0] = 0;
        addr[1] = (byte) Netlink.AF_NETLINK;
      }
      LibC.bind(fd, addr, addr.length);
      s.setBuffer(LibC.SO_RCVBUFFORCE, LibC.SO_RCVBUF, kernelBufferBytes);
      s.setBuffer(LibC.SO_SNDBUFFORCE, LibC.SO_SNDBUF, kernelBufferBytes);
      s.setOption(Netlink.SOL_NETLINK, Netlink.NETLINK_CAP_ACK, 1);
      s.setOption(Netlink.SOL_NETLINK, Netlink.NETLINK_EXT_ACK, 1);
      ByteBuffer tv = ByteBuffer.allocate(16).order(ByteOrder.nativeOrder());
      tv.putLong(timeoutMillis / 1000).putLong((timeoutMillis % 1000) * 1000L);
      LibC.setsockopt(fd, LibC.SOL_SOCKET, LibC.SO_RCVTIMEO, tv.array(), 16);
    } catch (LastErrorException e) {
      s.close();
      throw new NetlinkException(e.getErrorCode(), "configuring the netlink socket failed");
    }
    return s;
  }

  private void setBuffer(int force, int plain, int bytes) {
    // The FORCE variants need CAP_NET_ADMIN and ignore rmem_max, which matters for big batches;
    // without the capability fall back to what the sysctl allows.
    try {
      setOption(LibC.SOL_SOCKET, force, bytes);
    } catch (LastErrorException e) {
      try {
        setOption(LibC.SOL_SOCKET, plain, bytes);
      } catch (LastErrorException ignored) {
        // the default buffer still works, only with smaller batches
      }
    }
  }

  private void setOption(int level, int name, int value) {
    byte[] v = ByteBuffer.allocate(4).order(ByteOrder.nativeOrder()).putInt(value).array();
    try {
      LibC.setsockopt(fd, level, name, v, 4);
    } catch (LastErrorException e) {
      if (level == Netlink.SOL_NETLINK) {
        return; // optional niceties; older kernels lack them
      }
      throw e;
    }
  }

  /** Sends {@code len} bytes of {@code buf} to the kernel (port 0) in one datagram. */
  public void send(byte[] buf, int len) throws IOException {
    byte[] kernel = new byte[12];
    kernel[ByteOrder.nativeOrder() == ByteOrder.BIG_ENDIAN ? 1 : 0] = (byte) Netlink.AF_NETLINK;
    while (true) {
      try {
        long n = LibC.sendto(fd, buf, len, 0, kernel, kernel.length);
        if (n != len) {
          throw new IOException("short netlink send: " + n + " of " + len + " bytes");
        }
        return;
      } catch (LastErrorException e) {
        if (e.getErrorCode() != EINTR) {
          throw new NetlinkException(e.getErrorCode(), "sendto(netlink) failed");
        }
      }
    }
  }

  /**
   * Receives one datagram. The returned buffer is valid until the next call.
   *
   * @throws NetlinkTimeoutException when nothing arrives within the timeout
   */
  public ByteBuffer receive() throws IOException {
    while (true) {
      recvBuffer.clear();
      long n;
      try {
        n = LibC.recv(fd, recvBuffer, recvBuffer.capacity(), LibC.MSG_TRUNC);
      } catch (LastErrorException e) {
        if (e.getErrorCode() == EINTR) {
          continue;
        }
        if (e.getErrorCode() == EAGAIN) {
          throw new NetlinkTimeoutException();
        }
        throw new NetlinkException(e.getErrorCode(), "recv(netlink) failed");
      }
      if (n > recvBuffer.capacity()) {
        throw new IOException(
            "netlink datagram of " + n + " bytes truncated to " + recvBuffer.capacity());
      }
      recvBuffer.limit((int) n);
      return recvBuffer;
    }
  }

  // recvmmsg layout on LP64 Linux: struct mmsghdr is a 56-byte msghdr plus msg_len, padded to 64;
  // struct iovec is base + len, 16 bytes.
  private static final int MMSGHDR = 64;
  private static final int IOVEC = 16;
  private static final int MSGHDR_IOV = 16;
  private static final int MSGHDR_IOVLEN = 24;
  private static final int MMSG_LEN = 56;
  private static final int SLOT = 512;
  private static final int SLOTS = 1024;
  private @Nullable Memory many;

  /**
   * Receives up to {@value #SLOTS} small datagrams (acks) in one {@code recvmmsg} call: waits for
   * the first, then takes whatever else is already queued. Under user-mode Linux, where each system
   * call is expensive, this is what makes a batch of ten thousand acks cheap to read. Datagrams
   * longer than 512 bytes are cut (their header and errno survive).
   *
   * @param each called with each datagram, valid only during the call
   * @return the number of datagrams received
   * @throws NetlinkTimeoutException when nothing arrives within the timeout
   */
  public int receiveMany(java.util.function.Consumer<ByteBuffer> each) throws IOException {
    if (!Platform.is64Bit() || !Platform.isLinux()) {
      each.accept(receive());
      return 1;
    }
    if (many == null) {
      many = new Memory((long) SLOTS * (MMSGHDR + IOVEC + SLOT));
      many.clear();
      long iovBase = (long) SLOTS * MMSGHDR;
      long slotBase = iovBase + (long) SLOTS * IOVEC;
      for (int i = 0; i < SLOTS; i++) {
        long iov = iovBase + (long) i * IOVEC;
        many.setLong(iov, Pointer.nativeValue(many.share(slotBase + (long) i * SLOT)));
        many.setLong(iov + 8, SLOT);
        long hdr = (long) i * MMSGHDR;
        many.setLong(hdr + MSGHDR_IOV, Pointer.nativeValue(many.share(iov)));
        many.setLong(hdr + MSGHDR_IOVLEN, 1);
      }
    }
    int n;
    while (true) {
      try {
        n = LibC.recvmmsg(fd, many, SLOTS, LibC.MSG_WAITFORONE, null);
        break;
      } catch (LastErrorException e) {
        if (e.getErrorCode() == EINTR) {
          continue;
        }
        if (e.getErrorCode() == EAGAIN) {
          throw new NetlinkTimeoutException();
        }
        throw new NetlinkException(e.getErrorCode(), "recvmmsg(netlink) failed");
      }
    }
    long slotBase = (long) SLOTS * (MMSGHDR + IOVEC);
    for (int i = 0; i < n; i++) {
      int len = Math.min(SLOT, many.getInt((long) i * MMSGHDR + MMSG_LEN));
      ByteBuffer b =
          many.getByteBuffer(slotBase + (long) i * SLOT, len).order(ByteOrder.nativeOrder());
      if (len >= Netlink.NLMSG_HDRLEN && b.getInt(0) > len) {
        // cut at SLOT bytes: keep header + errno, drop the rest, so the message still parses
        int keep = Math.min(len, Netlink.NLMSG_HDRLEN + 4 + Netlink.NLMSG_HDRLEN);
        b.putInt(0, keep);
        b.putShort(6, (short) (b.getShort(6) & ~Netlink.NLM_F_ACK_TLVS));
        b.limit(keep);
      }
      each.accept(b);
    }
    return n;
  }

  @Override
  public void close() {
    if (!closed) {
      closed = true;
      try {
        LibC.close(fd);
      } catch (LastErrorException ignored) {
        // nothing useful to do: the descriptor is gone either way
      }
    }
  }
}
