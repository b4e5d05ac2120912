package io.fairway.proxy.proxyprotocol;

import io.netty.channel.Channel;
import io.netty.handler.codec.haproxy.HAProxyCommand;
import io.netty.handler.codec.haproxy.HAProxyMessage;
import io.netty.handler.codec.haproxy.HAProxyProxiedProtocol;
import io.netty.util.AttributeKey;
import io.netty.util.NetUtil;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnknownHostException;

/**
 * Who a client connection is from and what it connected to: what its PROXY header named when the
 * service accepts one, else the socket's own peer and local addresses.
 *
 * @param source the client
 * @param destination the address the client connected to (the load balancer's, behind one)
 */
public record ClientAddress(InetSocketAddress source, InetSocketAddress destination) {
  /** Set on a client channel once its PROXY header is read. */
  static final AttributeKey<ClientAddress> KEY = AttributeKey.valueOf("fairway.clientAddress");

  /**
   * The client of {@code ch}: its PROXY header's source, else its peer. Frontends read this instead
   * of {@code remoteAddress()}; without a header it allocates nothing.
   */
  public static InetSocketAddress source(Channel ch) {
    ClientAddress a = ch.hasAttr(KEY) ? ch.attr(KEY).get() : null;
    return a != null ? a.source : (InetSocketAddress) ch.remoteAddress();
  }

  /** Both addresses of {@code ch}'s client, as {@link #source(Channel)} chooses them. */
  public static ClientAddress of(Channel ch) {
    ClientAddress a = ch.hasAttr(KEY) ? ch.attr(KEY).get() : null;
    if (a != null) {
      return a;
    }
    return new ClientAddress(
        unmap((InetSocketAddress) ch.remoteAddress()),
        unmap((InetSocketAddress) ch.localAddress()));
  }

  /**
   * What a decoded header names. A LOCAL command (a health check of the load balancer in front), an
   * UNKNOWN or a UNIX-socket header names no TCP client: the connection's own addresses stand.
   */
  static ClientAddress from(HAProxyMessage m, Channel ch) {
    HAProxyProxiedProtocol p = m.proxiedProtocol();
    boolean inet =
        p.addressFamily() == HAProxyProxiedProtocol.AddressFamily.AF_IPv4
            || p.addressFamily() == HAProxyProxiedProtocol.AddressFamily.AF_IPv6;
    if (m.command() == HAProxyCommand.LOCAL || !inet || m.sourceAddress() == null) {
      return of(ch);
    }
    return new ClientAddress(
        socket(m.sourceAddress(), m.sourcePort()),
        socket(m.destinationAddress(), m.destinationPort()));
  }

  /** A literal the decoder has validated already; never a DNS lookup. */
  private static InetSocketAddress socket(String literal, int port) {
    byte[] raw = NetUtil.createByteArrayFromIpAddressString(literal);
    try {
      return unmap(new InetSocketAddress(InetAddress.getByAddress(raw), port));
    } catch (UnknownHostException | RuntimeException e) {
      throw new IllegalArgumentException("not an address: " + literal, e);
    }
  }

  /** An IPv4 client seen through a dual-stack socket as ::ffff:a.b.c.d is an IPv4 client. */
  static InetSocketAddress unmap(InetSocketAddress a) {
    if (a != null && a.getAddress() instanceof Inet6Address v6) {
      byte[] b = v6.getAddress();
      boolean mapped = b[10] == (byte) 0xff && b[11] == (byte) 0xff;
      for (int i = 0; i < 10 && mapped; i++) {
        mapped = b[i] == 0;
      }
      if (mapped) {
        try {
          InetAddress v4 = InetAddress.getByAddress(new byte[] {b[12], b[13], b[14], b[15]});
          return new InetSocketAddress(v4, a.getPort());
        } catch (UnknownHostException e) {
          throw new IllegalStateException(e); // four bytes are always an address
        }
      }
    }
    return a;
  }

  /** Whether both addresses are IPv4 (a TCP4 header), else the header is TCP6. */
  boolean ipv4() {
    return source.getAddress() instanceof Inet4Address
        && destination.getAddress() instanceof Inet4Address;
  }

  static String literal(SocketAddress a, boolean v4) {
    InetAddress ip = ((InetSocketAddress) a).getAddress();
    if (!v4 && ip instanceof Inet4Address) {
      return "::ffff:" + ip.getHostAddress();
    }
    return NetUtil.toAddressString(ip);
  }
}
