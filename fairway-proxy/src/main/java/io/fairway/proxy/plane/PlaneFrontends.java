package io.fairway.proxy.plane;

import io.fairway.proxy.ProxyOptions;
import io.fairway.proxy.http.BackendPool;
import io.fairway.proxy.http.H2Links;
import io.fairway.proxy.l4.IdleWatch;
import io.fairway.proxy.table.Frontends;
import io.fairway.proxy.table.ProxyBackend;
import io.netty.channel.Channel;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the table's changes mean for the connections the frontends carry: a removed server's idle
 * and HTTP/2 connections close, and its established ones too unless the options keep them (the
 * kernel's {@code expire_nodest_conn}); a new idle timeout reaches established L4 connections.
 */
final class PlaneFrontends implements Frontends {
  private static final Logger log = LoggerFactory.getLogger(PlaneFrontends.class);

  /** The table's options in force. */
  private final Supplier<ProxyOptions> options;

  PlaneFrontends(Supplier<ProxyOptions> options) {
    this.options = options;
  }

  @Override
  public void retime(Channel client, long idleNanos) {
    IdleWatch.retime(client, idleNanos);
  }

  @Override
  public void removed(ProxyBackend rs) {
    BackendPool.of(rs).closeAll();
    if (options.get().keepConnectionsOnRemove()) {
      return;
    }
    H2Links.of(rs).closeAll(); // its streams are the exchanges of the connections closed below
    int n = 0;
    for (Channel ch : rs.established) {
      ch.close();
      n++;
    }
    if (n > 0) {
      log.info("{}: removed; closed {} established connection(s)", rs, n);
    }
  }
}
