package io.fairway.proxy;

import io.fairway.director.sched.Connection;

/**
 * One scheduled connection (L4) or request (HTTP) on a real server, from the pick until it ends.
 * Closing it moves the server's count from active to inactive; the kernel-scheduler accounting
 * ({@link Connection}) expires it later through the table's {@link ConnectionExpiry}.
 */
final class Lease {
  final RealServer server;
  private final Connection connection;
  private final ConnectionExpiry expiry;
  private boolean closed;

  Lease(RealServer server, Connection connection, ConnectionExpiry expiry) {
    this.server = server;
    this.connection = connection;
    this.expiry = expiry;
    server.bind();
  }

  /** The connection or request ended. Idempotent. */
  void close() {
    if (closed) {
      return;
    }
    closed = true;
    server.unbind();
    if (connection != null) {
      connection.closing();
      expiry.expireLater(connection);
    }
  }
}
