package io.fairway.check.checker;

import io.fairway.check.spec.CheckSource;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.ReflectiveChannelFactory;
import io.netty.channel.unix.UnixChannel;
import io.netty.resolver.NoopAddressResolverGroup;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;

/**
 * Bootstraps for targets that were resolved at load. keepalived resolves real servers once, at
 * load; so do we (an unresolvable name is a load error), which also spares every one of thousands
 * of checks a second a trip through the resolver.
 *
 * <p>A check with a {@link CheckSource} binds its socket to the source address and port before
 * connecting (Netty binds when a bootstrap has a local address), and sets {@code bind_if}/{@code
 * fwmark} on the raw socket just before that, on the event loop. Any failure (EADDRINUSE from a
 * {@code bind_port} two checks share, ENODEV from a missing interface, EPERM without CAP_NET_ADMIN)
 * fails that connect, so the check fails with the reason and runs again next time: the checker is
 * never stuck.
 */
final class Resolved {
  private Resolved() {}

  static Bootstrap bootstrap(EventLoopGroup group) {
    return new Bootstrap().group(group).resolver(NoopAddressResolverGroup.INSTANCE);
  }

  /**
   * A bootstrap of {@code channel}s that leave from {@code source} towards {@code target}.
   *
   * @throws IllegalArgumentException if {@code source} needs socket options this transport cannot
   *     set (NIO), or its address family differs from {@code target}'s
   */
  static Bootstrap bootstrap(
      EventLoopGroup group,
      Class<? extends Channel> channel,
      CheckSource source,
      InetSocketAddress target) {
    Bootstrap b = bootstrap(group);
    InetSocketAddress local = source.localAddress(target.getAddress());
    if (local != null) {
      b.localAddress(local);
    }
    if (!source.isSet()) {
      return b.channel(channel);
    }
    if ((source.bindInterface() != null || source.fwmark() != 0)
        && !UnixChannel.class.isAssignableFrom(channel)) {
      throw new IllegalArgumentException(
          "bind_if/fwmark need the epoll transport (Linux), not " + channel.getSimpleName());
    }
    ReflectiveChannelFactory<? extends Channel> plain = new ReflectiveChannelFactory<>(channel);
    return b.channelFactory(
        () -> {
          Channel ch = plain.newChannel();
          ch.pipeline().addFirst(new SourceOptions(source));
          return ch;
        });
  }

  /**
   * Sets bind_if/fwmark on the socket as it binds or connects, so a refusal fails that attempt, and
   * names the source in a bind failure ("Address already in use" alone does not say which address).
   */
  private static final class SourceOptions extends ChannelOutboundHandlerAdapter {
    private final CheckSource source;

    SourceOptions(CheckSource source) {
      this.source = source;
    }

    @Override
    public void connect(
        ChannelHandlerContext ctx,
        SocketAddress remote,
        SocketAddress local,
        ChannelPromise promise) {
      if (apply(ctx, promise)) {
        ctx.connect(remote, local, named(ctx, local, promise));
      }
    }

    /** For the unconnected DNS socket, which binds and then sends. */
    @Override
    public void bind(ChannelHandlerContext ctx, SocketAddress local, ChannelPromise promise) {
      if (apply(ctx, promise)) {
        ctx.bind(local, named(ctx, local, promise));
      }
    }

    private boolean apply(ChannelHandlerContext ctx, ChannelPromise promise) {
      if (source.bindInterface() != null || source.fwmark() != 0) {
        try {
          SocketOptions.apply(((UnixChannel) ctx.channel()).fd().intValue(), source);
        } catch (SocketOptions.SourceException e) {
          promise.tryFailure(e);
          ctx.channel().close();
          return false;
        }
      }
      ctx.pipeline().remove(this);
      return true;
    }

    private static ChannelPromise named(
        ChannelHandlerContext ctx, SocketAddress local, ChannelPromise promise) {
      ChannelPromise p = ctx.newPromise();
      p.addListener(
          f -> {
            if (f.isSuccess()) {
              promise.trySuccess();
              return;
            }
            Throwable t = f.cause();
            String m = String.valueOf(t.getMessage());
            if (local instanceof InetSocketAddress l
                && (t instanceof BindException || m.startsWith("bind("))) {
              int colon = m.lastIndexOf(": ");
              String reason = colon < 0 ? m : m.substring(colon + 2);
              t = new SocketOptions.SourceException("cannot bind to " + text(l) + ": " + reason);
            }
            promise.tryFailure(t);
          });
      return p;
    }

    private static String text(InetSocketAddress a) {
      String host = a.getAddress().getHostAddress();
      return (a.getAddress() instanceof java.net.Inet6Address ? "[" + host + "]" : host)
          + ":"
          + a.getPort();
    }
  }
}
