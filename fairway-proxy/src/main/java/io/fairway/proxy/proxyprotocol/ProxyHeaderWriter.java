package io.fairway.proxy.proxyprotocol;

import io.fairway.config.model.ProxyProtocol;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.haproxy.HAProxyCommand;
import io.netty.handler.codec.haproxy.HAProxyMessage;
import io.netty.handler.codec.haproxy.HAProxyMessageEncoder;
import io.netty.handler.codec.haproxy.HAProxyProtocolVersion;
import io.netty.handler.codec.haproxy.HAProxyProxiedProtocol;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.AttributeKey;
import java.net.InetSocketAddress;
import org.jspecify.annotations.Nullable;

/**
 * {@code send_proxy v1|v2}: the PROXY header at the start of a new backend connection, naming the
 * client connection it serves ({@link ClientAddress}: the one a PROXY header in front named, else
 * the socket's peer) and the address that client connected to.
 *
 * <p>Netty's encoder is in the backend's pipeline only for the header's write: every later write
 * passes no extra handler.
 */
public final class ProxyHeaderWriter {
  /**
   * The client a backend connection's header named, on connections that carry one: an HTTP
   * connection of a {@code send_proxy} server may serve only that client again (see the HTTP
   * frontend's {@code BackendPool}).
   */
  public static final AttributeKey<InetSocketAddress> OWNER =
      AttributeKey.valueOf("fairway.proxyHeaderOwner");

  private ProxyHeaderWriter() {}

  /**
   * Writes (without flushing) {@code client}'s header as the first bytes of {@code backend}, a
   * connected channel. Call on its event loop.
   *
   * <p>On a connection that re-encrypts (an {@link SslHandler} in its pipeline) the header is
   * written under the TLS handler, in clear, as HAProxy sends it with {@code send-proxy} and {@code
   * ssl}: the server reads it, then terminates TLS (nginx's {@code listen ... ssl proxy_protocol}).
   * It comes before the ClientHello only when written before the handshake starts: in the connect's
   * first listener (the handler starts it at the first flush or when the channel becomes active,
   * both after that listener).
   *
   * @return whether a header was written ({@code version} is not NONE)
   */
  public static boolean write(Channel backend, ProxyProtocol.Version version, Channel client) {
    if (version == ProxyProtocol.Version.NONE) {
      return false;
    }
    HAProxyMessage m = message(version, ClientAddress.of(client));
    ChannelHandlerContext tls = backend.pipeline().context(SslHandler.class);
    // First in the pipeline, so below the TLS handler too: a write from its context reaches it.
    backend.pipeline().addFirst(HAProxyMessageEncoder.INSTANCE);
    try {
      if (tls != null) {
        tls.write(m, backend.voidPromise());
      } else {
        backend.write(m, backend.voidPromise());
      }
    } finally {
      backend.pipeline().remove(HAProxyMessageEncoder.INSTANCE);
    }
    return true;
  }

  /**
   * For an HTTP backend connection being opened: marks it as {@code client}'s alone, and writes the
   * header once it connects (before the request, whose write is the connect's next listener). The
   * connection closes with the client, as nothing else may use it.
   */
  public static void onConnect(
      ChannelFuture connect, ProxyProtocol.Version version, Channel client) {
    if (version == ProxyProtocol.Version.NONE) {
      return;
    }
    Channel backend = connect.channel();
    backend.attr(OWNER).set(ClientAddress.source(client));
    connect.addListener(
        f -> {
          if (f.isSuccess()) {
            write(backend, version, client);
            client.closeFuture().addListener(c -> backend.close());
          }
        });
  }

  /** The key a {@code send_proxy} server's idle connections are kept under for {@code client}. */
  public static @Nullable InetSocketAddress owner(ProxyProtocol.Version version, Channel client) {
    return version == ProxyProtocol.Version.NONE ? null : ClientAddress.source(client);
  }

  static HAProxyMessage message(ProxyProtocol.Version version, ClientAddress a) {
    boolean v4 = a.ipv4();
    return new HAProxyMessage(
        version == ProxyProtocol.Version.V1 ? HAProxyProtocolVersion.V1 : HAProxyProtocolVersion.V2,
        HAProxyCommand.PROXY,
        v4 ? HAProxyProxiedProtocol.TCP4 : HAProxyProxiedProtocol.TCP6,
        ClientAddress.literal(a.source(), v4),
        ClientAddress.literal(a.destination(), v4),
        a.source().getPort(),
        a.destination().getPort());
  }
}
