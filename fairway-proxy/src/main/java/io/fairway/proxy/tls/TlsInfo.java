package io.fairway.proxy.tls;

import io.netty.channel.Channel;
import io.netty.handler.ssl.SslHandler;
import javax.net.ssl.ExtendedSSLSession;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SNIServerName;
import javax.net.ssl.SSLSession;
import org.jspecify.annotations.Nullable;

/**
 * What the access log says about a connection's TLS: the version it speaks and the server name the
 * client asked for, read from the session once the handshake is done.
 *
 * @param version the protocol ({@code TLSv1.3}), or null without TLS
 * @param sni the requested host name, or null without one
 */
public record TlsInfo(@Nullable String version, @Nullable String sni) {
  /** No TLS on the connection. */
  public static final TlsInfo NONE = new TlsInfo(null, null);

  /** The TLS of {@code ch} after its handshake; {@link #NONE} for a channel without TLS. */
  public static TlsInfo of(Channel ch) {
    SslHandler h = ch.pipeline().get(SslHandler.class);
    if (h == null) {
      return NONE;
    }
    SSLSession s = h.engine().getSession();
    return new TlsInfo(s.getProtocol(), serverName(s));
  }

  private static @Nullable String serverName(SSLSession s) {
    if (s instanceof ExtendedSSLSession e) {
      try {
        for (SNIServerName n : e.getRequestedServerNames()) {
          if (n instanceof SNIHostName h) {
            return h.getAsciiName();
          }
        }
      } catch (UnsupportedOperationException notKept) {
        return null; // an engine that does not keep the names: the log says '-'
      }
    }
    return null;
  }
}
