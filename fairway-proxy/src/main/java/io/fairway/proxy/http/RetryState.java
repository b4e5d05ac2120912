package io.fairway.proxy.http;

import io.fairway.proxy.table.ProxyBackend;
import java.util.HashSet;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The retry policy of one request and what it has used up. A pooled connection the backend closed
 * is the keep-alive race: one retry on a fresh connection, the same server allowed. A fresh
 * connection failing means the server is failing (being killed, restarting): one retry on another
 * server. Only a request that can be replayed is retried: complete, without body bytes already
 * sent, and idempotent.
 */
final class RetryState {
  /** What to do after a backend failed before responding. */
  enum Decision {
    GIVE_UP,
    FRESH_CONNECTION,
    OTHER_SERVER
  }

  private boolean retriedPooled;
  private boolean retriedFresh;

  /** Whether the current attempt uses a pooled connection. */
  private boolean reusedConnection;

  /** Empty and shared until a connect fails: most requests never retry. */
  private Set<ProxyBackend> tried = Set.of();

  /** The last of {@link #tried} to fail: a 502 after every server failed is counted for it. */
  private @Nullable ProxyBackend lastFailed;

  /** Backend connections the request was sent on (or meant to be), the first included. */
  private int attempts;

  void attempt(boolean pooled) {
    reusedConnection = pooled;
    attempts++;
  }

  boolean reusedConnection() {
    return reusedConnection;
  }

  /** Decides, and records the retry it allows, after {@code failed} broke the current attempt. */
  Decision afterFailure(ProxyBackend failed, boolean replayable) {
    if (!replayable || (reusedConnection ? retriedPooled : retriedFresh)) {
      return Decision.GIVE_UP;
    }
    if (reusedConnection) {
      retriedPooled = true;
      return Decision.FRESH_CONNECTION;
    }
    retriedFresh = true;
    connectFailed(failed);
    return Decision.OTHER_SERVER;
  }

  /** A server that could not be reached: not chosen again for this request. */
  void connectFailed(ProxyBackend rs) {
    if (tried.isEmpty()) {
      tried = new HashSet<>(2);
    }
    tried.add(rs);
    lastFailed = rs;
  }

  Set<ProxyBackend> tried() {
    return tried;
  }

  @Nullable ProxyBackend lastFailed() {
    return lastFailed;
  }

  /** Retries made so far, for the access log. */
  int count() {
    return Math.max(0, attempts - 1);
  }
}
