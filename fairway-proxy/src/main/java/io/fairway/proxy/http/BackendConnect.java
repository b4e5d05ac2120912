package io.fairway.proxy.http;

import io.fairway.proxy.Connector;
import io.fairway.proxy.ProxyOptions;
import io.fairway.proxy.ServiceTimeouts;
import io.fairway.proxy.Transport;
import io.fairway.proxy.table.ProxyBackend;
import io.netty.channel.ChannelFuture;
import io.netty.channel.EventLoop;
import io.netty.handler.timeout.IdleStateHandler;
import java.util.concurrent.TimeUnit;

/**
 * Opens a keep-alive backend connection for HTTP: a response decoder, a reader-idle watch for its
 * time in the pool, and the {@link HttpBackendHandler} that hands responses to the exchange using
 * it. Opened on the client's event loop, so the connection and the exchange share a thread.
 */
final class BackendConnect {
  private BackendConnect() {}

  /**
   * @param tls the server's TLS when the plan re-encrypts to it (its request waits in the handler
   *     until the handshake is done, and a failed handshake fails the connection as a reset would),
   *     or null
   */
  static ChannelFuture open(
      ProxyBackend rs,
      EventLoop loop,
      ProxyOptions options,
      ServiceTimeouts timeouts,
      java.util.function.Supplier<io.netty.handler.ssl.SslHandler> tls) {
    int connectMillis = (int) timeouts.connect().toMillis();
    ResponseDecoder decoder = new ResponseDecoder(options.maxHeaderSize() * 2 + 4096);
    return Connector.connect(
        loop,
        Transport.socketChannel(rs.address.getAddress()),
        ch -> {
          ch.config().setAllocator(Transport.ALLOCATOR);
          ch.config().setConnectTimeoutMillis(connectMillis);
          io.netty.handler.ssl.SslHandler h = tls.get();
          if (h != null) {
            ch.pipeline().addLast(h);
          }
          ch.pipeline()
              .addLast(decoder)
              // Reader idle only: an idle pooled connection neither reads nor writes, and
              // watching writes would cost a promise per write.
              .addLast(
                  new IdleStateHandler(
                      options.backendKeepAlive().toMillis(), 0, 0, TimeUnit.MILLISECONDS));
        },
        new HttpBackendHandler(rs, decoder),
        rs.address);
  }
}
