package io.fairway.proxy;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFactory;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.epoll.AbstractEpollStreamChannel;
import io.netty.channel.epoll.EpollIoOps;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.socket.SocketProtocolFamily;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.net.InetAddress;
import java.util.concurrent.RejectedExecutionException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Epoll socket channels that never leave the kernel's epoll set while they are open.
 *
 * <p>Why: Netty 4.2.18 removes a descriptor from epoll ({@code EPOLL_CTL_DEL}) when its interest
 * set becomes empty, but later re-arms it with {@code EPOLL_CTL_MOD}, which fails with ENOENT. An
 * L4 relay reaches exactly that state when a client half-closes (no more read interest) and is then
 * slow to read its download: the moment its send buffer fills, arming EPOLLOUT fails, the channel
 * is closed and the client gets a truncated stream. Keeping EPOLLERR in the interest set changes
 * nothing the kernel reports (epoll always reports errors), but the set is never empty, so the
 * descriptor is never deleted and re-arming works.
 *
 * <p>Netty's channel classes are final and the flag setter is protected, so the flag is set
 * reflectively; if a later Netty hides it, the relay still works, without the fix, and says so once
 * in the log.
 */
public final class KeptEpollChannels {
  private static final Logger log = LoggerFactory.getLogger(KeptEpollChannels.class);
  private static final int EPOLLERR = EpollIoOps.EPOLLERR.value();
  private static final int EPOLLIN = EpollIoOps.EPOLLIN.value();
  private static final @Nullable MethodHandle SET_FLAG = setFlag();

  private KeptEpollChannels() {}

  private static @Nullable MethodHandle setFlag() {
    try {
      Method m =
          Class.forName("io.netty.channel.epoll.AbstractEpollChannel")
              .getDeclaredMethod("setFlag", int.class);
      m.setAccessible(true);
      return MethodHandles.lookup()
          .unreflect(m)
          .asType(MethodType.methodType(void.class, AbstractEpollStreamChannel.class, int.class));
    } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
      log.warn(
          "cannot keep L4 connections in epoll ({}); a half-closed slow reader may get a truncated stream",
          e.toString());
      return null;
    }
  }

  /**
   * Backend connections of an L4 relay, kept from their creation, and with read interest from their
   * registration: the relay reads a backend from the moment it connects, and arming EPOLLIN then
   * would cost an epoll_ctl per connection that registering with it costs nothing.
   */
  public static ChannelFactory<EpollSocketChannel> sockets(InetAddress to) {
    SocketProtocolFamily family = Transport.family(to);
    return () -> {
      EpollSocketChannel ch = new EpollSocketChannel(family);
      setFlags(ch, EPOLLERR | EPOLLIN);
      return ch;
    };
  }

  /**
   * A listener's handler that keeps every accepted connection before it is registered, which costs
   * no system call (the flag goes in with the registration), and hands it on in a task of the
   * listener's loop.
   *
   * <p>Why a task: the listener runs on one of the loops that serve connections, and Netty
   * registers a connection that loop accepts at once, in the middle of the loop's batch of epoll
   * events, which Netty dispatches by descriptor number. The accepted socket often has the number
   * of a connection closed earlier in the batch, and would receive that connection's pending event
   * (see {@link io.fairway.proxy.Connector}). The loop runs its tasks after the batch.
   */
  public static final ChannelHandler ACCEPTED = new KeepAccepted();

  @ChannelHandler.Sharable
  private static final class KeepAccepted extends ChannelInboundHandlerAdapter {
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      if (!(msg instanceof Channel child)) {
        ctx.fireChannelRead(msg);
        return;
      }
      keep(child);
      try {
        ctx.executor().execute(() -> ctx.fireChannelRead(child));
      } catch (RejectedExecutionException e) {
        child.unsafe().closeForcibly(); // the loop is shutting down
      }
    }
  }

  /** Keeps {@code ch} in the epoll set; on a registered channel, costs one epoll_ctl. */
  public static void keep(Channel ch) {
    setFlags(ch, EPOLLERR);
  }

  private static void setFlags(Channel ch, int flags) {
    if (SET_FLAG != null && ch instanceof AbstractEpollStreamChannel e) {
      try {
        SET_FLAG.invokeExact(e, flags);
      } catch (Throwable t) {
        log.debug("cannot keep {} in epoll: {}", ch, t.toString());
      }
    }
  }
}
