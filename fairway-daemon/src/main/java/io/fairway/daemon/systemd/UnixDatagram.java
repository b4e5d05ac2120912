package io.fairway.daemon.systemd;

import com.sun.jna.LastErrorException;
import io.fairway.os.LibC;
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

  /** {@code sizeof(sun_path)} on Linux. */
  static final int SUN_PATH_MAX = 108;

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
    int fd;
    try {
      fd = LibC.socket(AF_UNIX, LibC.SOCK_DGRAM | LibC.SOCK_CLOEXEC, 0);
    } catch (LastErrorException e) {
      throw new IOException("socket(AF_UNIX, SOCK_DGRAM): errno " + e.getErrorCode(), e);
    }
    try {
      LibC.sendto(fd, data, data.length, LibC.MSG_NOSIGNAL, addr, addr.length);
    } catch (LastErrorException e) {
      throw new IOException("sendto " + address + ": errno " + e.getErrorCode(), e);
    } finally {
      LibC.Quiet.close(fd);
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
