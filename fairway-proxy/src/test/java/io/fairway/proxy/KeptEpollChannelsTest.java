package io.fairway.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollMode;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

class KeptEpollChannelsTest {
  @AutoClose final Cleanup cleanup = new Cleanup();

  /**
   * A listener on a serving loop accepts in the middle of the loop's batch of epoll events. The
   * accepted socket can get the number of a connection closed earlier in that batch; registered at
   * once, it would receive that connection's pending FIN (EPOLLRDHUP), a flag Netty never clears,
   * and the first splice from it would end its input although its client never closed.
   */
  @Test
  void aConnectionAcceptedMidBatchNeverGetsTheEventOfTheDescriptorItReuses() throws Exception {
    assumeTrue(Epoll.isAvailable(), "the native epoll transport");
    MultiThreadIoEventLoopGroup group =
        new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
    AutoCloseable stop = () -> group.shutdownGracefully(0, 2, TimeUnit.SECONDS).sync();
    cleanup.track(stop);
    EventLoop loop = group.next();
    ServerSocket sink = cleanup.track(new ServerSocket(0, 50, InetAddress.getLoopbackAddress()));
    sink.setSoTimeout(5000);
    InetSocketAddress sinkAddress =
        new InetSocketAddress(InetAddress.getLoopbackAddress(), sink.getLocalPort());
    int reused = 0;
    for (int attempt = 0; attempt < 20 && reused < 3; attempt++) {
      Outcome o = acceptMidBatch(loop, sink, sinkAddress);
      if (o.acceptedFd == o.closedFd) {
        reused++;
        assertThat(o.inputEnded).as("the accepted connection's input ended").isFalse();
      }
    }
    assertThat(reused)
        .as("attempts where the accepted socket reused the closed number")
        .isPositive();
  }

  private record Outcome(int closedFd, int acceptedFd, boolean inputEnded) {}

  private Outcome acceptMidBatch(EventLoop loop, ServerSocket sink, InetSocketAddress sinkAddress)
      throws Exception {
    // Where the accepted connection splices to, and the connection that gets closed.
    Channel target = connect(loop, sinkAddress, new ChannelInboundHandlerAdapter());
    Socket targetPeer = cleanup.track(sink.accept());
    Channel doomed = connect(loop, sinkAddress, new ChannelInboundHandlerAdapter());
    Socket doomedPeer = cleanup.track(sink.accept());
    int closedFd = ((EpollSocketChannel) doomed).fd().intValue();
    Channel trigger =
        connect(
            loop,
            sinkAddress,
            new ChannelInboundHandlerAdapter() {
              @Override
              public void channelRead(ChannelHandlerContext ctx, Object msg) {
                ((ByteBuf) msg).release();
                doomed.close(); // the number is free from here on
              }
            });
    Socket triggerPeer = cleanup.track(sink.accept());

    AtomicInteger acceptedFd = new AtomicInteger(-1);
    AtomicBoolean inputEnded = new AtomicBoolean();
    AtomicReference<Channel> accepted = new AtomicReference<>();
    Channel listener =
        new ServerBootstrap()
            .group(loop, loop)
            .channel(EpollServerSocketChannel.class)
            .handler(KeptEpollChannels.ACCEPTED)
            .childOption(EpollChannelOption.EPOLL_MODE, EpollMode.LEVEL_TRIGGERED)
            .childOption(ChannelOption.ALLOW_HALF_CLOSURE, true)
            .childHandler(
                new ChannelInboundHandlerAdapter() {
                  @Override
                  public void channelActive(ChannelHandlerContext ctx) {
                    EpollSocketChannel ch = (EpollSocketChannel) ctx.channel();
                    acceptedFd.set(ch.fd().intValue());
                    accepted.set(ch);
                    ch.spliceTo((EpollSocketChannel) target, Integer.MAX_VALUE);
                  }

                  @Override
                  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
                    if (evt instanceof ChannelInputShutdownEvent) {
                      inputEnded.set(true);
                    }
                  }
                })
            .bind(InetAddress.getLoopbackAddress(), 0)
            .syncUninterruptibly()
            .channel();
    // The trigger, the listener and the doomed connection become ready while the loop is held, in
    // that order: one batch.
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
    Socket client = cleanup.track(new Socket());
    client.connect(listener.localAddress(), 2000);
    doomedPeer.shutdownOutput(); // the doomed connection's pending event: EPOLLIN | EPOLLRDHUP
    release.countDown();
    await().atMost(Duration.ofSeconds(5)).until(() -> accepted.get() != null);
    // A byte through the splice: the first splice-in is where a stale FIN would end the input.
    client.getOutputStream().write('x');
    targetPeer.setSoTimeout(5000);
    InputStream in = targetPeer.getInputStream();
    assertThat(in.read()).isEqualTo('x');
    boolean ended = inputEnded.get();
    ChannelFuture closed = accepted.get().close();
    closed.syncUninterruptibly();
    listener.close().syncUninterruptibly();
    trigger.close().syncUninterruptibly();
    target.close().syncUninterruptibly();
    return new Outcome(closedFd, acceptedFd.get(), ended);
  }

  private static Channel connect(
      EventLoop loop, InetSocketAddress to, ChannelInboundHandlerAdapter handler) {
    ChannelFuture f =
        Connector.connect(
            loop,
            EpollSocketChannel::new,
            ch -> ch.config().setOption(EpollChannelOption.EPOLL_MODE, EpollMode.LEVEL_TRIGGERED),
            handler,
            to);
    f.syncUninterruptibly();
    return f.channel();
  }
}
