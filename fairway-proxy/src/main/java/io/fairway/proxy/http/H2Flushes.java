package io.fairway.proxy.http;

import io.netty.channel.ChannelHandler;
import io.netty.handler.flush.FlushConsolidationHandler;

/**
 * Merges the flushes of an HTTP/2 connection's streams into fewer writes. Each stream flushes on
 * its own, when its other side (a backend for a client's stream, a client for a backend's) has
 * something for it: without merging, ten streams answered in one event-loop turn would be ten TLS
 * records and ten writes where one does. Flushes made while the connection reads, or in the same
 * turn of its event loop, go out as one; goes between TLS (or the socket) and the HTTP/2 codec.
 */
public final class H2Flushes {
  /** Flushes merged into one write at most, so a busy connection's frames are not held back. */
  static final int MAX_MERGED = 64;

  private H2Flushes() {}

  /** A new handler: it holds the connection's pending flush, so one per connection. */
  public static ChannelHandler handler() {
    return new FlushConsolidationHandler(MAX_MERGED, true);
  }
}
