package io.fairway.netlink;

import io.fairway.os.Errno;
import java.io.IOException;

/** A failed socket call, with its errno. */
public class NetlinkException extends IOException {
  private static final long serialVersionUID = 1L;
  private final int errno;

  public NetlinkException(int errno, String message) {
    super(message + " (" + Errno.name(errno) + ")");
    this.errno = errno;
  }

  public int errno() {
    return errno;
  }
}
