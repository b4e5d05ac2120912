package io.fairway.proxy;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFactory;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoop;
import java.net.SocketAddress;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;

/**
 * Opens a backend connection the way Netty's {@code Bootstrap.connect} does (create, configure, add
 * the handler, register, connect), without a {@code Bootstrap} per connection.
 *
 * <p>Why: a proxy makes one backend connection per L4 connection, and a {@code Bootstrap} is a
 * builder meant to be configured once: per connection it costs its option map and copies of it, an
 * attribute map, the resolver lookup of an address that is resolved already, and a task hop to
 * connect. That garbage is what an idle connection set-up leaves in the young generation, and with
 * a large eden every byte of it is a heap page touched for the first time: resident memory that
 * stays (docs/benchmarks-proxy.md, idle connections).
 *
 * <p>A connection opened on its loop's own thread is registered in a task, never at once: the call
 * may come from inside the loop's dispatch of a batch of epoll events (a request read, a failed
 * connect), and Netty 4.2 dispatches those by descriptor number. A socket created there gets the
 * lowest free number, often that of a connection closed earlier in the same batch, and registered
 * at once it would receive that connection's pending event: a FIN closed backend connections that
 * were still connecting, and set Netty's sticky end-of-stream flag on others, which makes a
 * splicing relay end its stream early. The loop runs its tasks after the whole batch, so a
 * registration there only ever sees events of its own socket (MidBatchRegistrationTest).
 */
public final class Connector {
  private Connector() {}

  /**
   * Connects a new channel of {@code factory} on {@code loop} to {@code to}.
   *
   * @param configure sets the channel's options before it is registered (as {@code
   *     Bootstrap.option} does)
   * @param handler the channel's one handler, added before registration
   * @return the connect future; a failed creation, registration or option closes the channel
   */
  public static ChannelFuture connect(
      EventLoop loop,
      ChannelFactory<? extends Channel> factory,
      Consumer<Channel> configure,
      ChannelHandler handler,
      SocketAddress to) {
    Channel ch = factory.newChannel();
    try {
      configure.accept(ch);
      ch.pipeline().addLast(handler);
    } catch (RuntimeException e) {
      ch.unsafe().closeForcibly();
      return ch.newFailedFuture(e);
    }
    ChannelPromise connected = ch.newPromise();
    if (loop.inEventLoop()) {
      try {
        loop.execute(() -> register(loop, ch, to, connected));
        return connected;
      } catch (RejectedExecutionException e) {
        // The loop is shutting down: registering now fails the connect the usual way.
      }
    }
    register(loop, ch, to, connected);
    return connected;
  }

  private static void register(
      EventLoop loop, Channel ch, SocketAddress to, ChannelPromise connected) {
    ChannelFuture registered = loop.register(ch);
    if (registered.isDone()) {
      connectRegistered(registered, ch, to, connected);
    } else {
      registered.addListener(f -> connectRegistered(registered, ch, to, connected));
    }
  }

  private static void connectRegistered(
      ChannelFuture registered, Channel ch, SocketAddress to, ChannelPromise connected) {
    if (!registered.isSuccess()) {
      if (ch.isRegistered()) {
        ch.close();
      } else {
        ch.unsafe().closeForcibly();
      }
      connected.setFailure(registered.cause());
      return;
    }
    ch.connect(to, connected).addListener(ChannelFutureListener.CLOSE_ON_FAILURE);
  }
}
