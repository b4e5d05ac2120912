package io.fairway.daemon.systemd;

import com.sun.jna.LastErrorException;
import com.sun.jna.Library;
import com.sun.jna.Native;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * Sends one datagram to an {@code AF_UNIX} socket: libc's {@code socket}, {@code sendto} and {@code
 * close} through JNA (Java 17's NIO has Unix stream sockets only).
 *
 * <p>An address starting with {@code @} is in the abstract namespace (Linux): the {@code @} becomes
 * a NUL byte and the address length excludes any terminator, as systemd and {@code sd_notify} treat
 * it.
 */
public final class UnixDatagram {
  private static final int AF_UNIX = 1;
  private static final int SOCK_DGRAM = 2;
  private static final int SOCK_CLOEXEC = 02000000;
  private static final int MSG_NOSIGNAL = 0x4000;

  /** {@code sizeof(sun_path)} on Linux. */
  static final int SUN_PATH_MAX = 108;

  /** The libc calls; {@code size_t} and {@code ssize_t} are {@code long} on 64-bit Linux. */
  interface LibC extends Library {
    LibC INSTANCE = Native.load("c", LibC.class);

    int socket(int domain, int type, int protocol) throws LastErrorException;

    long sendto(int fd, byte[] buf, long len, int flags, byte[] addr, int addrLen)
        throws LastErrorException;

    int close(int fd);
  }

  private UnixDatagram() {}

  /**
   * Sends {@code message} to the socket at {@code address} (a path, or {@code @name} for the
   * abstract namespace).
   *
   * @throws IOException the address is not usable or the send failed (with libc's errno)
   */
  public static void send(String address, String message) throws IOException {
    byte[] addr = sockaddr(address);
    byte[] data = message.getBytes(StandardCharsets.UTF_8);
    LibC c = LibC.INSTANCE;
    int fd;
    try {
      fd = c.socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    } catch (LastErrorException e) {
      throw new IOException("socket(AF_UNIX, SOCK_DGRAM): errno " + e.getErrorCode(), e);
    }
    try {
      c.sendto(fd, data, data.length, MSG_NOSIGNAL, addr, addr.length);
    } catch (LastErrorException e) {
      throw new IOException("sendto " + address + ": errno " + e.getErrorCode(), e);
    } finally {
      c.close(fd);
    }
  }

  /** {@code struct sockaddr_un} for {@code address}, cut to its real length. */
  static byte[] sockaddr(String address) throws IOException {
    if (address.isEmpty()) {
      throw new IOException("empty AF_UNIX address");
    }
    boolean abstractName = address.charAt(0) == '@';
    byte[] path = address.getBytes(StandardCharsets.UTF_8);
    // A path socket carries its NUL terminator; an abstract name is exactly its bytes.
    int pathLength = abstractName ? path.length : path.length + 1;
    if (pathLength > SUN_PATH_MAX) {
      throw new IOException("AF_UNIX address longer than " + SUN_PATH_MAX + " bytes: " + address);
    }
    ByteBuffer b = ByteBuffer.allocate(2 + pathLength).order(ByteOrder.nativeOrder());
    b.putShort((short) AF_UNIX);
    b.put(path);
    byte[] addr = b.array();
    if (abstractName) {
      addr[2] = 0;
    }
    return addr;
  }
}
