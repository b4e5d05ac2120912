package io.fairway.proxy.http;

import io.fairway.proxy.proxyprotocol.ClientAddress;
import io.fairway.proxy.tls.TlsInfo;
import io.netty.channel.Channel;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;

/**
 * Who a client connection is, as its exchanges and the access log see it: its address (the one a
 * PROXY header gave, if any), that address as X-Forwarded-For text, and its TLS version and server
 * name. Read once, when the connection becomes active: over TLS that is after the handshake.
 */
final class ClientPeer {
  /** Before the connection is active: nothing known. */
  static final ClientPeer NONE = new ClientPeer(null, null, TlsInfo.NONE);

  /** Null only in {@link #NONE}. */
  private final @Nullable InetSocketAddress address;

  private final byte @Nullable [] ip;
  private final TlsInfo tls;

  private ClientPeer(@Nullable InetSocketAddress address, byte @Nullable [] ip, TlsInfo tls) {
    this.address = address;
    this.ip = ip;
    this.tls = tls;
  }

  static ClientPeer of(Channel client) {
    InetSocketAddress a = ClientAddress.source(client);
    return new ClientPeer(
        a,
        a.getAddress().getHostAddress().getBytes(StandardCharsets.ISO_8859_1),
        TlsInfo.of(client));
  }

  /** The client's address; null before the connection is active. */
  @Nullable InetSocketAddress address() {
    return address;
  }

  /** The client's address as X-Forwarded-For text (shared: not to be changed); null before. */
  byte @Nullable [] ip() {
    return ip;
  }

  /** The client's TLS version and server name for the access log; {@link TlsInfo#NONE} without. */
  TlsInfo tls() {
    return tls;
  }

  /**
   * The address {@code client} connected to, as a Host value for a request without one (HTTP/1.0):
   * the backend gets HTTP/1.1, where a missing Host is an error.
   */
  static byte[] hostHeader(Channel client) {
    InetSocketAddress a = (InetSocketAddress) client.localAddress();
    String ip = a.getAddress().getHostAddress();
    String v = (a.getAddress() instanceof Inet6Address ? "[" + ip + "]" : ip) + ":" + a.getPort();
    return v.getBytes(StandardCharsets.ISO_8859_1);
  }
}
