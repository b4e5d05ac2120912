package io.fairway.proxy.table;

import io.fairway.director.sched.Connection;
import org.jspecify.annotations.Nullable;

/**
 * One scheduled connection (L4) or request (HTTP) on a real server, from the pick until it ends.
 * Closing an L4 connection moves the server's count from active to inactive, and the
 * kernel-scheduler accounting ({@link Connection}) expires it later through the table's {@link
 * ConnectionExpiry}; an HTTP request expires when it completes.
 *
 * <p>It is also the {@link Pick} that found a server.
 */
public final class Lease implements Pick {
  public final ProxyBackend server;
  private final @Nullable Connection connection;
  private final ConnectionExpiry expiry;

  /** Told when this lease ends: someone may be waiting for the slot. */
  private final SlotQueue slots;

  private boolean closed;

  /** The learned limit's window this lease was admitted in ({@link LearnedLimit}). */
  private final int limitEpoch;

  private boolean answered;

  Lease(
      ProxyBackend server,
      @Nullable Connection connection,
      ConnectionExpiry expiry,
      SlotQueue slots) {
    this.server = server;
    this.connection = connection;
    this.expiry = expiry;
    this.slots = slots;
    this.limitEpoch = server.limitEpoch();
    server.bind();
  }

  /**
   * The server refused this one: its connect failed, or it closed a fresh connection before sending
   * a byte (L4) or a response (HTTP). Call before closing the lease; what it teaches is the
   * server's limit ({@link LearnedLimit}).
   */
  public void refused() {
    if (!closed && !answered) {
      answered = true;
      server.refused(limitEpoch);
    }
  }

  /** The server answered this one (its first byte, or a response head). Counted once. */
  public void served() {
    if (!closed && !answered) {
      answered = true;
      server.served();
    }
  }

  /**
   * An HTTP request ended. It expires at once instead of lingering as inactive: a request is not a
   * TCP connection, has no closing state to wait out, and at tens of thousands of requests a second
   * a minute of inactive entries would be millions of live objects. Idempotent.
   */
  public void closeRequest() {
    if (closed) {
      return;
    }
    closed = true;
    server.release();
    if (connection != null) {
      connection.closing();
      connection.expire();
    }
    slots.released();
  }

  /**
   * This lease is a UDP flow: from now on it counts as inactive, as the kernel counts a UDP
   * connection from its first datagram. Call once, right after the pick.
   */
  public void toFlow() {
    server.bindFlow();
    if (connection != null) {
      connection.closing();
    }
  }

  /** The UDP flow expired or was closed: it stops counting at once. Idempotent. */
  public void closeFlow() {
    if (closed) {
      return;
    }
    closed = true;
    server.unbindFlow();
    if (connection != null) {
      connection.expire();
    }
    slots.released();
  }

  /** The L4 connection ended: inactive until it expires, as in the kernel. Idempotent. */
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    server.unbind();
    if (connection != null) {
      connection.closing();
      expiry.expireLater(connection);
    }
    slots.released();
  }
}
