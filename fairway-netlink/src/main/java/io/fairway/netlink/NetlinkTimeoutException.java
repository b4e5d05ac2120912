package io.fairway.netlink;

/** The kernel did not answer within the socket's receive timeout. */
public final class NetlinkTimeoutException extends NetlinkException {
  private static final long serialVersionUID = 1L;

  public NetlinkTimeoutException() {
    super(NetlinkSocket.EAGAIN, "no answer from the kernel within the timeout");
  }
}
