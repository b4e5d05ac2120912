package io.fairway.ipvs.route;

import io.fairway.netlink.GenericNetlink;
import io.fairway.netlink.NetlinkException;
import io.fairway.netlink.NetlinkMessage;
import io.fairway.netlink.NetlinkSocket;
import io.fairway.os.Errno;
import java.io.Closeable;
import java.io.IOException;
import java.net.InetAddress;
import java.util.LinkedHashSet;
import java.util.Optional;
import java.util.Set;

/**
 * Fairway's host routes in one kernel routing table, over rtnetlink: add, remove, list the routes
 * of Fairway's protocol, and remove all of them. The socket belongs to the network namespace of the
 * thread that opened it. Thread-safe (one request at a time).
 */
public final class RouteTable implements Closeable {
  private final GenericNetlink netlink;
  private final int table;

  private RouteTable(GenericNetlink netlink, int table) {
    this.netlink = netlink;
    this.table = table;
  }

  /** Opens an rtnetlink socket for routing table {@code table}. */
  public static RouteTable open(int table) throws IOException {
    // validates the table number the same way a route would
    new HostRoute(InetAddress.getLoopbackAddress(), HostRoute.LOOPBACK, table);
    return new RouteTable(
        new GenericNetlink(NetlinkSocket.open(RouteCodec.NETLINK_ROUTE, 1 << 20, 2000)), table);
  }

  public int table() {
    return table;
  }

  /** The route announcing {@code address} in this table, through the interface that holds it. */
  public synchronized HostRoute routeFor(InetAddress address) throws IOException {
    int s = netlink.nextSeq();
    for (NetlinkMessage m : netlink.dump(RouteCodec.dump(RouteCodec.RTM_GETADDR, s), s)) {
      Optional<Integer> ifindex = RouteCodec.interfaceOf(m, address);
      if (ifindex.isPresent()) {
        return new HostRoute(address, ifindex.get(), table);
      }
    }
    return new HostRoute(address, HostRoute.LOOPBACK, table);
  }

  /** Adds {@code r}; false if it was there already. */
  public synchronized boolean add(HostRoute r) throws IOException {
    return change(true, r, Errno.EEXIST);
  }

  /** Removes {@code r}; false if it was not there. */
  public synchronized boolean remove(HostRoute r) throws IOException {
    return change(false, r, Errno.ESRCH);
  }

  /** Fairway's host routes in this table, as the kernel has them now. */
  public synchronized Set<HostRoute> list() throws IOException {
    int s = netlink.nextSeq();
    Set<HostRoute> out = new LinkedHashSet<>();
    for (NetlinkMessage m : netlink.dump(RouteCodec.dump(RouteCodec.RTM_GETROUTE, s), s)) {
      RouteCodec.ownRoute(m, table).ifPresent(out::add);
    }
    return out;
  }

  /** Removes every route of Fairway's protocol from this table; returns how many. */
  public synchronized int removeAll() throws IOException {
    int n = 0;
    for (HostRoute r : list()) {
      if (remove(r)) {
        n++;
      }
    }
    return n;
  }

  private boolean change(boolean add, HostRoute r, int benign) throws IOException {
    if (r.table() != table) {
      throw new IllegalArgumentException(r + " is not in table " + table);
    }
    int s = netlink.nextSeq();
    try {
      netlink.request(RouteCodec.change(add, r, s), s);
      return true;
    } catch (NetlinkException e) {
      if (e.errno() == benign) {
        return false;
      }
      String what = (add ? "adding route " : "removing route ") + r;
      throw new NetlinkException(
          e.errno(), what + (e.errno() == Errno.EPERM ? " needs CAP_NET_ADMIN" : ""));
    }
  }

  @Override
  public void close() {
    netlink.close();
  }
}
