package io.fairway.proxy.http;

import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Idle keep-alive connections to one backend, one stack per event loop.
 *
 * <p>A connection is only ever handed to exchanges on its own event loop, so the stacks need no
 * locks and a request never hops threads. Most-recently-used first: the connection least likely to
 * have been closed by the backend's keep-alive timer.
 */
public final class BackendPool {
  private final Map<EventLoop, ArrayDeque<Channel>> idle = new ConcurrentHashMap<>();

  /** An idle, still-open connection on this loop, or {@code null}. Call on {@code loop}. */
  Channel poll(EventLoop loop) {
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

  /** Keeps {@code ch} for reuse; false (and the caller closes it) when the stack is full. */
  boolean offer(Channel ch, int max) {
    EventLoop loop = ch.eventLoop();
    ArrayDeque<Channel> q = idle.computeIfAbsent(loop, l -> new ArrayDeque<>());
    if (q.size() >= max || !ch.isActive()) {
      return false;
    }
    q.addLast(ch);
    return true;
  }

  /** Forgets a connection that closed while idle. Call on its event loop. */
  void remove(Channel ch) {
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
  }
}
