package io.fairway.daemon.announce;

import io.fairway.ipvs.route.HostRoute;
import io.fairway.ipvs.route.RouteTable;
import io.fairway.netlink.NetlinkException;
import io.fairway.os.Errno;
import java.io.IOException;
import java.net.InetAddress;
import java.util.LinkedHashSet;
import java.util.Set;

/** {@link Routes} as host routes of Fairway's protocol in one kernel routing table. */
public final class KernelRoutes implements Routes, AutoCloseable {
  /**
   * The route {@link #checkWritable} asks the kernel to remove: of Fairway's protocol, so only a
   * route Fairway put there could match, and the check runs just after those were removed.
   */
  private static final InetAddress PROBE = InetAddress.getLoopbackAddress();

  private final RouteTable table;

  public KernelRoutes(RouteTable table) {
    this.table = table;
  }

  @Override
  public Set<InetAddress> list() throws IOException {
    Set<InetAddress> out = new LinkedHashSet<>();
    for (HostRoute r : table.list()) {
      out.add(r.address());
    }
    return out;
  }

  @Override
  public void add(InetAddress address) throws IOException {
    table.add(table.routeFor(address));
  }

  @Override
  public void remove(InetAddress address) throws IOException {
    for (HostRoute r : table.list()) {
      if (r.address().equals(address)) {
        table.remove(r);
      }
    }
  }

  /** Removes every route of Fairway's protocol in the table: stale ones at start, all at exit. */
  @Override
  public int removeAll() throws IOException {
    return table.removeAll();
  }

  /**
   * Removes a route that is not there: rtnetlink refuses any change without CAP_NET_ADMIN before it
   * looks for the route, so the answer is "no such route" exactly when adding would be allowed.
   */
  @Override
  public void checkWritable() throws IOException {
    try {
      table.remove(new HostRoute(PROBE, HostRoute.LOOPBACK, table.table()));
    } catch (NetlinkException e) {
      throw new IOException(
          "cannot write routing table "
              + table.table()
              + ": "
              + (e.errno() == Errno.EPERM
                  ? "operation not permitted (fairway run needs CAP_NET_ADMIN)"
                  : e.getMessage()),
          e);
    }
  }

  @Override
  public void close() {
    table.close();
  }
}
