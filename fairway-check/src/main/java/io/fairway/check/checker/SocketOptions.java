package io.fairway.check.checker;

import com.sun.jna.LastErrorException;
import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import io.fairway.check.spec.CheckSource;
import io.fairway.os.LibC;
import java.nio.charset.StandardCharsets;

/**
 * The two socket options keepalived sets on a check's socket that the JDK and Netty do not expose:
 * {@code SO_BINDTODEVICE} ({@code bind_if}) and {@code SO_MARK} ({@code fwmark}). Both are set on
 * the raw file descriptor, before the socket is bound or connected, as keepalived's {@code
 * socket_bind_connect} does.
 */
final class SocketOptions {
  private SocketOptions() {}

  /**
   * Applies {@code bind_if} and {@code fwmark} of {@code source} to {@code fd}.
   *
   * @throws SourceException naming the option and the kernel's reason (ENODEV, EPERM, ...)
   */
  static void apply(int fd, CheckSource source) {
    if (source.fwmark() != 0) {
      Memory v = new Memory(4);
      v.setInt(0, (int) source.fwmark());
      set(fd, LibC.SO_MARK, v, 4, "fwmark " + source.fwmark());
    }
    if (source.bindInterface() != null) {
      byte[] name = source.bindInterface().getBytes(StandardCharsets.US_ASCII);
      Memory v = new Memory(name.length + 1);
      v.clear();
      v.write(0, name, 0, name.length);
      set(fd, LibC.SO_BINDTODEVICE, v, name.length + 1, "bind_if " + source.bindInterface());
    }
  }

  private static void set(int fd, int option, Pointer value, int len, String what) {
    try {
      LibC.setsockopt(fd, LibC.SOL_SOCKET, option, value, len);
    } catch (LastErrorException e) {
      throw new SourceException(what + ": " + reason(e.getErrorCode()));
    } catch (LinkageError e) {
      throw new SourceException(what + ": needs Linux libc (" + e.getMessage() + ")");
    }
  }

  /** The kernel's words for {@code errno}, with a hint for the two an operator can fix. */
  static String reason(int errno) {
    String s;
    try {
      s = LibC.strerror(errno);
    } catch (LinkageError e) {
      s = "errno " + errno;
    }
    return switch (errno) {
      case 1 -> s + " (needs CAP_NET_ADMIN, or CAP_NET_RAW for bind_if on kernels before 5.7)";
      case 19 -> s + " (no such interface)";
      default -> s;
    };
  }

  /** Reads {@code SO_MARK} back (for tests and diagnostics). */
  static int mark(int fd) {
    Memory v = new Memory(4);
    Memory len = new Memory(4);
    len.setInt(0, 4);
    LibC.getsockopt(fd, LibC.SOL_SOCKET, LibC.SO_MARK, v, len);
    return v.getInt(0);
  }

  /** Reads {@code SO_BINDTODEVICE} back (for tests and diagnostics); empty when unbound. */
  static String device(int fd) {
    Memory v = new Memory(16);
    v.clear();
    Memory len = new Memory(4);
    len.setInt(0, 16);
    LibC.getsockopt(fd, LibC.SOL_SOCKET, LibC.SO_BINDTODEVICE, v, len);
    return v.getString(0, StandardCharsets.US_ASCII.name());
  }

  /** A source option the kernel refused; the check fails with this message as its reason. */
  static final class SourceException extends RuntimeException {
    SourceException(String message) {
      super(message, null, false, false);
    }
  }
}
