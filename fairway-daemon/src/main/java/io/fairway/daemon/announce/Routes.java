package io.fairway.daemon.announce;

import java.io.IOException;
import java.net.InetAddress;
import java.util.Set;

/** Where announced addresses are kept: the kernel table in production, memory in tests. */
public interface Routes {
  /** The addresses announced now, as the table has them (drift included). */
  Set<InetAddress> list() throws IOException;

  void add(InetAddress address) throws IOException;

  void remove(InetAddress address) throws IOException;
}
