package io.fairway.proxy.table;

import io.netty.channel.Channel;

/**
 * What the table asks of the frontends above it. The table decides who gets a connection and counts
 * it, but the connections are the frontends' (the L4 relay's idle timer, HTTP's pooled backend
 * connections): where a change in the table must reach them, it says so here, and the plane that
 * built the frontends does it. So the table depends on no frontend.
 */
public interface Frontends {
  /** Nothing to tell: a table without frontends (the scheduling decision alone). */
  Frontends NONE =
      new Frontends() {
        @Override
        public void retime(Channel client, long idleNanos) {}

        @Override
        public void removed(ProxyBackend rs) {}
      };

  /**
   * A service's idle timeout is now {@code idleNanos}: {@code client}, an established client
   * connection of the service, takes it for its activity from now on if its frontend keeps one.
   */
  void retime(Channel client, long idleNanos);

  /**
   * {@code rs} left its service and its last pool is out: close what the frontends still hold for
   * it, as the table's options say.
   */
  void removed(ProxyBackend rs);
}
