package io.fairway.ipvs.netlink;

import com.sun.jna.LastErrorException;
import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Pointer;
import java.nio.ByteBuffer;
import org.jspecify.annotations.Nullable;

/**
 * The libc socket calls of Fairway's kernel I/O, bound by JNA direct mapping (no interface proxy,
 * so a batch of thousands of requests costs a few native calls, not reflection per call): the
 * netlink socket here, and fairway-vrrp's raw VRRP, AF_PACKET and ICMPv6 sockets, which depend on
 * this package for rtnetlink already, so one binding serves both. Failing calls throw {@link
 * LastErrorException} carrying errno; {@link Quiet} has the ones that fail on a steady path.
 */
public final class LibC {
  static {
    Native.register(NativeLibrary.getInstance("c"));
  }

  private LibC() {}

  public static final int SOCK_RAW = 3;
  public static final int SOCK_CLOEXEC = 0x80000;
  public static final int SOL_SOCKET = 1;
  static final int SO_SNDBUF = 7;
  static final int SO_RCVBUF = 8;
  public static final int SO_RCVTIMEO = 20;
  static final int SO_SNDBUFFORCE = 32;
  static final int SO_RCVBUFFORCE = 33;
  static final int MSG_TRUNC = 0x20;
  static final int MSG_DONTWAIT = 0x40;

  public static native int socket(int domain, int type, int protocol) throws LastErrorException;

  static native int bind(int fd, byte[] addr, int addrlen) throws LastErrorException;

  public static native int setsockopt(int fd, int level, int name, byte[] value, int len)
      throws LastErrorException;

  public static native long sendto(
      int fd, byte[] buf, long len, int flags, byte[] addr, int addrlen) throws LastErrorException;

  static native long recv(int fd, ByteBuffer buf, long len, int flags) throws LastErrorException;

  public static native int close(int fd) throws LastErrorException;

  /** {@code recvmmsg(2)}: many datagrams in one system call. */
  static native int recvmmsg(int fd, Pointer msgvec, int vlen, int flags, @Nullable Pointer timeout)
      throws LastErrorException;

  static final int MSG_WAITFORONE = 0x10000;

  public static native int if_nametoindex(String name);

  /**
   * Calls whose failures are expected on the steady path (a receive timing out five times a second,
   * an interface's flags read every poll): they return -1 and leave errno in {@link
   * Native#getLastError}, where the mappings above would build a {@link LastErrorException} (with
   * its stack trace and message parsing: about 0.4 ms of CPU each, measured).
   */
  public static final class Quiet {
    static {
      Native.register(NativeLibrary.getInstance("c"));
    }

    private Quiet() {}

    public static native long recvmsg(int fd, Pointer msghdr, int flags);

    public static native int ioctl(int fd, long request, byte[] ifreq);
  }
}
