package io.fairway.proxy.http;

import io.fairway.proxy.table.BackendAttachment;
import io.fairway.proxy.table.ProxyBackend;
import io.netty.channel.EventLoop;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * A real server's HTTP/2 connections ({@code http2}), one per event loop, opened when an exchange
 * first needs one and replaced when it closed or received a GOAWAY.
 */
public final class H2Links {
  /** A server's links: they live as long as the destination, kept on it by the table. */
  private static final BackendAttachment<H2Links> ON_SERVER = BackendAttachment.of(H2Links::new);

  private final Map<EventLoop, H2Link> links = new ConcurrentHashMap<>();

  /** The HTTP/2 connections to {@code rs}. */
  public static H2Links of(ProxyBackend rs) {
    return rs.attachment(ON_SERVER);
  }

  /** The loop's usable connection, or a new one from {@code open}. Call on {@code loop}. */
  H2Link get(EventLoop loop, Supplier<H2Link> open) {
    H2Link l = links.get(loop);
    if (l == null || !l.usable()) {
      l = open.get();
      links.put(loop, l);
    }
    return l;
  }

  /** Closes every connection (the destination was removed). Safe from any thread. */
  public void closeAll() {
    for (Map.Entry<EventLoop, H2Link> e : links.entrySet()) {
      H2Link l = e.getValue();
      e.getKey().execute(l::close);
    }
    links.clear();
  }
}
