package io.fairway.os;

import com.sun.jna.LastErrorException;
import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Pointer;
import java.nio.ByteBuffer;
import org.jspecify.annotations.Nullable;

/**
 * Fairway's one binding of libc: every call the JDK and Netty have no API for, for every module
 * (netlink sockets, VRRP's raw sockets, a checker's socket options and ICMP echo, a script's
 * process group, sd_notify's datagram, a signal's disposition). Bound by JNA direct mapping (no
 * interface proxy, so a batch of thousands of requests costs a few native calls, not reflection per
 * call); overloads of one name bind the same C function with the argument types each caller holds
 * (a {@code byte[]} or native {@link Pointer} memory).
 *
 * <p>The calls here throw {@link LastErrorException} carrying errno when they fail; {@link Quiet}
 * has the ones whose failure is expected on a steady path, which return -1 and leave errno in
 * {@link Native#getLastError}.
 */
public final class LibC {
  static {
    Native.register(NativeLibrary.getInstance("c"));
  }

  private LibC() {}

  public static final int SOCK_DGRAM = 2;
  public static final int SOCK_RAW = 3;
  public static final int SOCK_NONBLOCK = 0x800;
  public static final int SOCK_CLOEXEC = 0x80000;
  public static final int SOL_SOCKET = 1;
  public static final int SO_SNDBUF = 7;
  public static final int SO_RCVBUF = 8;
  public static final int SO_RCVTIMEO = 20;
  public static final int SO_BINDTODEVICE = 25;
  public static final int SO_SNDBUFFORCE = 32;
  public static final int SO_RCVBUFFORCE = 33;
  public static final int SO_MARK = 36;
  public static final int MSG_TRUNC = 0x20;
  public static final int MSG_DONTWAIT = 0x40;
  public static final int MSG_NOSIGNAL = 0x4000;
  public static final int MSG_WAITFORONE = 0x10000;

  public static native int socket(int domain, int type, int protocol) throws LastErrorException;

  public static native int bind(int fd, byte[] addr, int addrlen) throws LastErrorException;

  public static native int bind(int fd, Pointer addr, int addrlen) throws LastErrorException;

  public static native int setsockopt(int fd, int level, int name, byte[] value, int len)
      throws LastErrorException;

  public static native int setsockopt(int fd, int level, int name, Pointer value, int len)
      throws LastErrorException;

  public static native int getsockopt(int fd, int level, int name, Pointer value, Pointer len)
      throws LastErrorException;

  public static native long sendto(
      int fd, byte[] buf, long len, int flags, byte[] addr, int addrlen) throws LastErrorException;

  public static native long sendto(
      int fd, Pointer buf, long len, int flags, Pointer addr, int addrlen)
      throws LastErrorException;

  public static native long recv(int fd, ByteBuffer buf, long len, int flags)
      throws LastErrorException;

  /** {@code recvmmsg(2)}: many datagrams in one system call. */
  public static native int recvmmsg(
      int fd, Pointer msgvec, int vlen, int flags, @Nullable Pointer timeout)
      throws LastErrorException;

  public static native int close(int fd) throws LastErrorException;

  /** 0 when there is no such interface. */
  public static native int if_nametoindex(String name);

  public static native int geteuid();

  public static native int getegid();

  /** The C library's words for {@code errno}, as {@code perror} prints them. */
  public static native String strerror(int errno);

  /** {@code signal(2)}; the previous disposition, {@code null} for {@code SIG_DFL}. */
  public static native @Nullable Pointer signal(int signum, @Nullable Pointer handler);

  /**
   * Calls whose failures are expected on the steady path (a receive timing out five times a second,
   * an interface's flags read every poll, a close on a path already failing, a kill of a group
   * already gone): they return -1 and leave errno in {@link Native#getLastError}, where the
   * mappings above would build a {@link LastErrorException} (with its stack trace and message
   * parsing).
   */
  public static final class Quiet {
    static {
      Native.register(NativeLibrary.getInstance("c"));
    }

    private Quiet() {}

    public static native int socket(int domain, int type, int protocol);

    public static native int setsockopt(int fd, int level, int name, Pointer value, int len);

    public static native long sendto(
        int fd, Pointer buf, long len, int flags, Pointer addr, int addrlen);

    public static native long recvfrom(
        int fd, Pointer buf, long len, int flags, Pointer addr, Pointer addrlen);

    public static native long recvmsg(int fd, Pointer msghdr, int flags);

    public static native int recvmmsg(
        int fd, Pointer msgvec, int vlen, int flags, @Nullable Pointer timeout);

    public static native int ioctl(int fd, long request, byte[] ifreq);

    public static native int shutdown(int fd, int how);

    public static native int close(int fd);

    public static native int kill(int pid, int sig);
  }
}
