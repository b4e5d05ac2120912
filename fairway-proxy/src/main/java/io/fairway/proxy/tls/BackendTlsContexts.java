package io.fairway.proxy.tls;

import io.fairway.config.model.BackendTls;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ApplicationProtocolNames;
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

  /** The contexts of servers with {@code http2}: the same, offering only h2 by ALPN. */
  private final Map<BackendTls, SslContext> h2Contexts = new ConcurrentHashMap<>();

  /** The context of {@code t}, built once. */
  public SslContext context(BackendTls t) throws SSLException {
    return context(t, false);
  }

  private SslContext context(BackendTls t, boolean h2) throws SSLException {
    Map<BackendTls, SslContext> m = h2 ? h2Contexts : contexts;
    SslContext c = m.get(t);
    if (c != null) {
      return c;
    }
    SslContextBuilder b =
        SslContextBuilder.forClient()
            .sslProvider(SslProvider.JDK)
            .trustManager(new File(t.verify()))
            .protocols("TLSv1.3", "TLSv1.2")
            // Host name (or IP address) verification, as an HTTPS client does.
            .endpointIdentificationAlgorithm("HTTPS");
    if (h2) {
      b.applicationProtocolConfig(
          new ApplicationProtocolConfig(
              ApplicationProtocolConfig.Protocol.ALPN,
              ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
              ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT,
              ApplicationProtocolNames.HTTP_2));
    }
    c = b.build();
    SslContext before = m.putIfAbsent(t, c);
    return before == null ? c : before;
  }

  /**
   * A handler for one connection to {@code server}: the name sent and checked is {@code sni} when
   * given, else the server's address (no SNI is sent for an address).
   */
  public SslHandler handler(BackendTls t, InetSocketAddress server, ByteBufAllocator alloc)
      throws SSLException {
    return handler(t, server, alloc, false);
  }

  /** As above; {@code h2}: offers h2 by ALPN (the server has {@code http2}). */
  public SslHandler handler(
      BackendTls t, InetSocketAddress server, ByteBufAllocator alloc, boolean h2)
      throws SSLException {
    String peer = t.sni().orElse(server.getAddress().getHostAddress());
    SslHandler h = context(t, h2).newHandler(alloc, peer, server.getPort());
    h.setHandshakeTimeoutMillis(HANDSHAKE_TIMEOUT_MILLIS);
    return h;
  }

  /** A backend that accepts the connection but never finishes the handshake is given up on. */
  private static final long HANDSHAKE_TIMEOUT_MILLIS = 10_000;
}
