package io.fairway.proxy.http;

import io.fairway.proxy.proxyprotocol.ProxyHeaderWriter;
import io.fairway.proxy.table.BackendAttachment;
import io.fairway.proxy.table.ProxyBackend;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * Idle keep-alive connections to one backend, one stack per event loop.
 *
 * <p>A connection is only ever handed to exchanges on its own event loop, so the stacks need no
 * locks and a request never hops threads. Most-recently-used first: the connection least likely to
 * have been closed by the backend's keep-alive timer.
 *
 * <p>A connection that began with a PROXY header ({@code send_proxy}) told the server who its
 * client is, so it is kept apart under that client ({@link ProxyHeaderWriter#OWNER}) and only ever
 * handed to that client again, as HAProxy keeps such connections private to their session.
 */
public final class BackendPool {
  /** A server's pool: it lives as long as the destination, kept on it by the table. */
  private static final BackendAttachment<BackendPool> ON_SERVER =
      BackendAttachment.of(BackendPool::new);

  private final Map<EventLoop, ArrayDeque<Channel>> idle = new ConcurrentHashMap<>();

  /** {@code send_proxy} connections by loop, then by the client their header named. */
  private final Map<EventLoop, Owned> owned = new ConcurrentHashMap<>();

  /** One loop's owned idle connections; touched on that loop only. */
  private static final class Owned {
    final Map<InetSocketAddress, ArrayDeque<Channel>> byClient = new HashMap<>();
    int size;
  }

  /** The idle connections to {@code rs}. */
  public static BackendPool of(ProxyBackend rs) {
    return rs.attachment(ON_SERVER);
  }

  /** An idle, still-open connection on this loop, or {@code null}. Call on {@code loop}. */
  @Nullable Channel poll(EventLoop loop) {
    return poll(loop, null);
  }

  /**
   * An idle, still-open connection on this loop that may serve {@code owner} ({@code null}: a
   * server without {@code send_proxy}), or {@code null}. Call on {@code loop}.
   */
  @Nullable Channel poll(EventLoop loop, @Nullable InetSocketAddress owner) {
    if (owner != null) {
      return pollOwned(loop, owner);
    }
    ArrayDeque<Channel> q = idle.get(loop);
    if (q == null) {
      return null;
    }
    Channel ch;
    while ((ch = q.pollLast()) != null) {
      if (ch.isActive()) {
        return ch;
      }
    }
    return null;
  }

  private @Nullable Channel pollOwned(EventLoop loop, InetSocketAddress owner) {
    Owned o = owned.get(loop);
    if (o == null) {
      return null;
    }
    ArrayDeque<Channel> q = o.byClient.get(owner);
    if (q == null) {
      return null;
    }
    Channel ch;
    while ((ch = q.pollLast()) != null) {
      o.size--;
      if (ch.isActive()) {
        break;
      }
    }
    if (q.isEmpty()) {
      o.byClient.remove(owner);
    }
    return ch;
  }

  /** Keeps {@code ch} for reuse; false (and the caller closes it) when the stack is full. */
  boolean offer(Channel ch, int max) {
    EventLoop loop = ch.eventLoop();
    InetSocketAddress owner =
        ch.hasAttr(ProxyHeaderWriter.OWNER) ? ch.attr(ProxyHeaderWriter.OWNER).get() : null;
    if (owner != null) {
      Owned o = owned.computeIfAbsent(loop, l -> new Owned());
      if (o.size >= max || !ch.isActive()) {
        return false;
      }
      o.byClient.computeIfAbsent(owner, c -> new ArrayDeque<>(1)).addLast(ch);
      o.size++;
      return true;
    }
    ArrayDeque<Channel> q = idle.computeIfAbsent(loop, l -> new ArrayDeque<>());
    if (q.size() >= max || !ch.isActive()) {
      return false;
    }
    q.addLast(ch);
    return true;
  }

  /** Forgets a connection that closed while idle. Call on its event loop. */
  void remove(Channel ch) {
    InetSocketAddress owner =
        ch.hasAttr(ProxyHeaderWriter.OWNER) ? ch.attr(ProxyHeaderWriter.OWNER).get() : null;
    if (owner != null) {
      Owned o = owned.get(ch.eventLoop());
      ArrayDeque<Channel> q = o == null ? null : o.byClient.get(owner);
      if (o != null && q != null && q.remove(ch)) {
        o.size--;
        if (q.isEmpty()) {
          o.byClient.remove(owner);
        }
      }
      return;
    }
    ArrayDeque<Channel> q = idle.get(ch.eventLoop());
    if (q != null) {
      q.remove(ch);
    }
  }

  /** Closes every idle connection (the destination was removed). Safe from any thread. */
  public void closeAll() {
    for (Map.Entry<EventLoop, ArrayDeque<Channel>> e : idle.entrySet()) {
      ArrayDeque<Channel> q = e.getValue();
      e.getKey()
          .execute(
              () -> {
                Channel ch;
                while ((ch = q.pollLast()) != null) {
                  ch.close();
                }
              });
    }
    for (Map.Entry<EventLoop, Owned> e : owned.entrySet()) {
      Owned o = e.getValue();
      e.getKey()
          .execute(
              () -> {
                for (ArrayDeque<Channel> q : o.byClient.values()) {
                  q.forEach(Channel::close);
                }
                o.byClient.clear();
                o.size = 0;
              });
    }
  }
}
