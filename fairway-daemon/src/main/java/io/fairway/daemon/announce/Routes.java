package io.fairway.daemon.announce;

import java.io.IOException;
import java.net.InetAddress;
import java.util.Set;

/** Where announced addresses are kept: the kernel table in production, memory in tests. */
public interface Routes extends AutoCloseable {
  /** The addresses announced now, as the table has them (drift included). */
  Set<InetAddress> list() throws IOException;

  void add(InetAddress address) throws IOException;

  void remove(InetAddress address) throws IOException;

  /** Removes every announced address: stale ones at start, all at exit. */
  default int removeAll() throws IOException {
    Set<InetAddress> all = list();
    for (InetAddress a : all) {
      remove(a);
    }
    return all.size();
  }

  /**
   * Fails unless this process may change the table. Listing needs no privilege, so a table that
   * opens and lists may still refuse every route; finding that out at start makes it an error there
   * instead of a warning at the first pass.
   *
   * @throws IOException the table refuses changes (the message says why, on one line)
   */
  default void checkWritable() throws IOException {}

  @Override
  default void close() {}

  /** Opens the routes of one kernel routing table ({@code announce_table}). */
  @FunctionalInterface
  interface Opener {
    Routes open(int table) throws IOException;

    /** Host routes of Fairway's protocol in the kernel's table. */
    Opener KERNEL = t -> new KernelRoutes(io.fairway.ipvs.route.RouteTable.open(t));
  }
}
