package io.fairway.vrrp.io;

import io.fairway.config.model.vrrp.VirtualAddress;
import io.fairway.netlink.NetlinkException;
import io.fairway.netlink.NetlinkMessage;
import io.fairway.netlink.NetlinkSocket;
import io.fairway.os.Errno;
import java.io.Closeable;
import java.io.IOException;
import java.net.Inet4Address;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * Adds and removes virtual addresses with rtnetlink RTM_NEWADDR / RTM_DELADDR, over the project's
 * netlink socket. Adding an address that is there, or removing one that is not, is not an error:
 * after a crash the kernel may still hold what the previous run added.
 */
public final class InterfaceAddresses implements Closeable {
  static final int NETLINK_ROUTE = 0;
  static final int RTM_NEWADDR = 20;
  static final int RTM_DELADDR = 21;
  static final int IFA_ADDRESS = 1;
  static final int IFA_LOCAL = 2;
  static final int IFA_LABEL = 3;
  static final int IFA_FLAGS = 8;
  static final int IFA_F_NODAD = 0x02;
  static final int NLM_F_REQUEST = 1;
  static final int NLM_F_ACK = 4;
  static final int NLM_F_EXCL = 0x200;
  static final int NLM_F_CREATE = 0x400;
  static final int EADDRNOTAVAIL = 99;
  static final int ENODEV = 19;

  private final NetlinkSocket socket;
  private int seq = 1;

  private InterfaceAddresses(NetlinkSocket socket) {
    this.socket = socket;
  }

  public static InterfaceAddresses open() throws IOException {
    return new InterfaceAddresses(NetlinkSocket.open(NETLINK_ROUTE, 256 * 1024, 2000));
  }

  /** Adds {@code a} to interface {@code ifindex}; true if it was not there yet. */
  public synchronized boolean add(VirtualAddress a, int ifindex) throws IOException {
    int err = request(RTM_NEWADDR, NLM_F_CREATE | NLM_F_EXCL, a, ifindex);
    if (err == Errno.EEXIST) {
      return false;
    }
    check(err, "adding " + a);
    return true;
  }

  /** Removes {@code a} from interface {@code ifindex}; true if it was there. */
  public synchronized boolean remove(VirtualAddress a, int ifindex) throws IOException {
    int err = request(RTM_DELADDR, 0, a, ifindex);
    if (err == EADDRNOTAVAIL || err == ENODEV) {
      return false;
    }
    check(err, "removing " + a);
    return true;
  }

  private static void check(int err, String what) throws IOException {
    if (err != 0) {
      throw new NetlinkException(err, what + (err == Errno.EPERM ? " needs CAP_NET_ADMIN" : ""));
    }
  }

  private int request(int type, int flags, VirtualAddress a, int ifindex) throws IOException {
    boolean v4 = a.address() instanceof Inet4Address;
    byte[] addr = a.address().getAddress();
    ByteBuffer b = ByteBuffer.allocate(256).order(ByteOrder.nativeOrder());
    int s = seq++;
    b.putInt(0)
        .putShort((short) type)
        .putShort((short) (NLM_F_REQUEST | NLM_F_ACK | flags))
        .putInt(s)
        .putInt(0);
    // struct ifaddrmsg
    b.put((byte) (v4 ? Sys.AF_INET : Sys.AF_INET6))
        .put((byte) a.prefixLength())
        .put((byte) 0)
        .put((byte) a.scope())
        .putInt(ifindex);
    attr(b, IFA_LOCAL, addr);
    attr(b, IFA_ADDRESS, addr);
    if (v4 && a.label().isPresent()) {
      byte[] l = (a.label().get() + "\0").getBytes(StandardCharsets.US_ASCII);
      attr(b, IFA_LABEL, l);
    }
    if (!v4 && type == RTM_NEWADDR) {
      // No duplicate address detection: the address must be usable the moment we are master.
      attr(b, IFA_FLAGS, Sys.intOpt(IFA_F_NODAD));
    }
    int len = b.position();
    b.putInt(0, len);
    socket.send(b.array(), len);
    while (true) {
      ByteBuffer r = socket.receive();
      for (NetlinkMessage m : NetlinkMessage.parseAll(r)) {
        if (m.isError() && m.seq() == s) {
          return m.errno();
        }
      }
    }
  }

  private static void attr(ByteBuffer b, int type, byte[] value) {
    b.putShort((short) (4 + value.length)).putShort((short) type).put(value);
    while (b.position() % 4 != 0) {
      b.put((byte) 0);
    }
  }

  @Override
  public void close() {
    socket.close();
  }
}
