package io.fairway.proxy.tls;

import io.fairway.config.model.BackendTls;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import java.io.File;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.net.ssl.SSLException;

/**
 * The client side of re-encryption ({@code real_server ... { tls { verify CA sni NAME } }}): one
 * context per block (its CA file's contents are part of the key, so a changed file gets a new one
 * at the next reload), and an {@link SslHandler} per backend connection that verifies the chain
 * against the CA and the certificate's name against {@code sni} (or the server's IP address).
 *
 * <p>The JDK's provider: the handshakes are one per backend connection, which the pool and the L4
 * relay keep long, so BoringSSL's speed matters far less here than on the listeners.
 */
public final class BackendTlsContexts {
  private final Map<BackendTls, SslContext> contexts = new ConcurrentHashMap<>();

  /** The context of {@code t}, built once. */
  public SslContext context(BackendTls t) throws SSLException {
    SslContext c = contexts.get(t);
    if (c != null) {
      return c;
    }
    c =
        SslContextBuilder.forClient()
            .sslProvider(SslProvider.JDK)
            .trustManager(new File(t.verify()))
            .protocols("TLSv1.3", "TLSv1.2")
            // Host name (or IP address) verification, as an HTTPS client does.
            .endpointIdentificationAlgorithm("HTTPS")
            .build();
    SslContext before = contexts.putIfAbsent(t, c);
    return before == null ? c : before;
  }

  /**
   * A handler for one connection to {@code server}: the name sent and checked is {@code sni} when
   * given, else the server's address (no SNI is sent for an address).
   */
  public SslHandler handler(BackendTls t, InetSocketAddress server, ByteBufAllocator alloc)
      throws SSLException {
    String peer = t.sni().orElse(server.getAddress().getHostAddress());
    SslHandler h = context(t).newHandler(alloc, peer, server.getPort());
    h.setHandshakeTimeoutMillis(HANDSHAKE_TIMEOUT_MILLIS);
    return h;
  }

  /** A backend that accepts the connection but never finishes the handshake is given up on. */
  private static final long HANDSHAKE_TIMEOUT_MILLIS = 10_000;
}
