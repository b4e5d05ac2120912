package io.fairway.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoop;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollSocketChannel;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

class ConnectorTest {
  @AutoClose final Cleanup cleanup = new Cleanup();

  /**
   * The epoll loop dispatches a batch of readiness events by descriptor number. A connection opened
   * while the batch is being dispatched can get the number of one closed earlier in the batch, and
   * then receives that connection's pending event: here a FIN (EPOLLRDHUP), which closes a backend
   * connection that was still connecting. The connection must register after the batch.
   */
  @Test
  void aConnectionOpenedMidBatchNeverGetsTheEventOfTheDescriptorItReuses() throws Exception {
    assumeTrue(Epoll.isAvailable(), "the native epoll transport");
    MultiThreadIoEventLoopGroup group =
        new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
    AutoCloseable stop =
        () -> group.shutdownGracefully(0, 2, java.util.concurrent.TimeUnit.SECONDS).sync();
    cleanup.track(stop);
    ServerSocket server = cleanup.track(new ServerSocket(0, 50, InetAddress.getLoopbackAddress()));
    server.setSoTimeout(5000);
    InetSocketAddress to =
        new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort());
    EventLoop loop = group.next();
    int reused = 0;
    for (int attempt = 0; attempt < 20 && reused < 3; attempt++) {
      Outcome o = midBatchConnect(loop, server, to);
      if (o.newFd == o.closedFd) {
        reused++;
        assertThat(o.connect.cause()).as("the connect of the new connection").isNull();
        assertThat(o.connect.channel().isActive()).isTrue();
      }
      o.connect.channel().close().syncUninterruptibly();
    }
    assertThat(reused)
        .as("attempts where the new connection reused the closed number")
        .isPositive();
  }

  private record Outcome(int closedFd, int newFd, ChannelFuture connect) {}

  private Outcome midBatchConnect(EventLoop loop, ServerSocket server, InetSocketAddress to)
      throws Exception {
    Channel doomed = connect(loop, to, new ChannelInboundHandlerAdapter());
    Socket doomedPeer = cleanup.track(server.accept());
    int closedFd = ((EpollSocketChannel) doomed).fd().intValue();
    AtomicReference<ChannelFuture> opened = new AtomicReference<>();
    AtomicReference<Integer> newFd = new AtomicReference<>();
    Channel trigger =
        connect(
            loop,
            to,
            new ChannelInboundHandlerAdapter() {
              @Override
              public void channelRead(ChannelHandlerContext ctx, Object msg) {
                ((ByteBuf) msg).release();
                if (opened.get() != null) {
                  return;
                }
                doomed.close(); // the number is free from here on
                ChannelFuture f =
                    Connector.connect(
                        loop,
                        EpollSocketChannel::new,
                        ch -> {},
                        new ChannelInboundHandlerAdapter(),
                        to);
                newFd.set(((EpollSocketChannel) f.channel()).fd().intValue());
                opened.set(f);
              }
            });
    Socket triggerPeer = cleanup.track(server.accept());
    // Both become ready while the loop is held, the trigger first: one batch, in that order.
    CountDownLatch held = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    loop.execute(
        () -> {
          held.countDown();
          try {
            release.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        });
    held.await();
    triggerPeer.getOutputStream().write(1);
    doomedPeer.shutdownOutput(); // the doomed connection's pending event: EPOLLIN | EPOLLRDHUP
    release.countDown();
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> opened.get() != null && opened.get().isDone());
    cleanup.track(server.accept());
    trigger.close().syncUninterruptibly();
    return new Outcome(closedFd, newFd.get(), opened.get());
  }

  private static Channel connect(
      EventLoop loop, InetSocketAddress to, ChannelInboundHandlerAdapter handler)
      throws IOException {
    ChannelFuture f = Connector.connect(loop, EpollSocketChannel::new, ch -> {}, handler, to);
    f.syncUninterruptibly();
    return f.channel();
  }
}
