package io.fairway.ipvs.netlink;

import com.sun.jna.LastErrorException;
import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Pointer;
import java.nio.ByteBuffer;

/**
 * The few libc calls a netlink socket needs, bound by JNA direct mapping (no interface proxy, so a
 * batch of thousands of requests costs a few native calls, not reflection per call). Failing calls
 * throw {@link LastErrorException} carrying errno.
 */
final class LibC {
  static {
    Native.register(NativeLibrary.getInstance("c"));
  }

  private LibC() {}

  static final int SOCK_RAW = 3;
  static final int SOCK_CLOEXEC = 0x80000;
  static final int SOL_SOCKET = 1;
  static final int SO_SNDBUF = 7;
  static final int SO_RCVBUF = 8;
  static final int SO_RCVTIMEO = 20;
  static final int SO_SNDBUFFORCE = 32;
  static final int SO_RCVBUFFORCE = 33;
  static final int MSG_TRUNC = 0x20;
  static final int MSG_DONTWAIT = 0x40;

  static native int socket(int domain, int type, int protocol) throws LastErrorException;

  static native int bind(int fd, byte[] addr, int addrlen) throws LastErrorException;

  static native int setsockopt(int fd, int level, int name, byte[] value, int len)
      throws LastErrorException;

  static native long sendto(int fd, byte[] buf, long len, int flags, byte[] addr, int addrlen)
      throws LastErrorException;

  static native long recv(int fd, ByteBuffer buf, long len, int flags) throws LastErrorException;

  static native int close(int fd) throws LastErrorException;

  /** {@code recvmmsg(2)}: many datagrams in one system call. */
  static native int recvmmsg(int fd, Pointer msgvec, int vlen, int flags, Pointer timeout)
      throws LastErrorException;

  static final int MSG_WAITFORONE = 0x10000;
}
