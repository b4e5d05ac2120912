package io.fairway.proxy.table;

import io.netty.channel.Channel;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.util.concurrent.GlobalEventExecutor;

/**
 * Soft stop (HAProxy's soft-stop, Envoy's drain): the table's client connections, so that a
 * stopping daemon can let them finish. Once {@link #start()}ed, every client connection is told
 * ({@link #EVENT} down its pipeline): an HTTP connection finishes the exchange under way, says
 * {@code Connection: close} and closes, an idle keep-alive one closes at once; L4 connections and
 * tunnels, which have no message boundary to stop at, run until they end.
 */
public final class Drain {
  /** The user event a connection receives when the table starts draining. */
  public static final Object EVENT =
      new Object() {
        @Override
        public String toString() {
          return "DRAIN";
        }
      };

  /** Accepted TCP clients; a closed channel leaves the group by itself. */
  private final ChannelGroup clients =
      new DefaultChannelGroup("fairway-clients", GlobalEventExecutor.INSTANCE);

  private volatile boolean draining;

  /** Tracks an accepted connection; one accepted while the drain starts is told too. */
  public void track(Channel ch) {
    clients.add(ch);
    if (draining) {
      ch.eventLoop().execute(() -> ch.pipeline().fireUserEventTriggered(EVENT));
    }
  }

  /** Tells every connection to finish; returns how many there are. */
  public int start() {
    draining = true;
    int open = clients.size(); // before telling them: an idle one closes at once
    for (Channel ch : clients) {
      ch.eventLoop().execute(() -> ch.pipeline().fireUserEventTriggered(EVENT));
    }
    return open;
  }

  public boolean draining() {
    return draining;
  }

  /** Client connections still open. */
  public int open() {
    return clients.size();
  }
}
