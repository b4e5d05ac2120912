package io.fairway.daemon.announce;

import io.fairway.ipvs.route.HostRoute;
import io.fairway.ipvs.route.RouteTable;
import java.io.IOException;
import java.net.InetAddress;
import java.util.LinkedHashSet;
import java.util.Set;

/** {@link Routes} as host routes of Fairway's protocol in one kernel routing table. */
public final class KernelRoutes implements Routes, AutoCloseable {
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

  @Override
  public void close() {
    table.close();
  }
}
