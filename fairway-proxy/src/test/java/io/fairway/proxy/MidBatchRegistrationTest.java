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
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Netty's epoll loop dispatches a batch of readiness events by descriptor number. A socket that is
 * created and registered while a batch is dispatched can get the number of a connection closed
 * earlier in the batch, and then receives that connection's pending event. Each test builds such a
 * batch: the loop is held while a trigger connection, then (here) the new socket's source, then the
 * doomed connection become ready, in that order; the trigger's read closes the doomed connection.
 * The pending event is a FIN (EPOLLRDHUP). Both tests fail on code that registers at once.
 */
class MidBatchRegistrationTest {
  @AutoClose final Cleanup cleanup = new Cleanup();
  private EventLoop loop;
  private ServerSocket sink;
  private InetSocketAddress sinkAddress;

  @BeforeEach
  void oneEpollLoop() throws Exception {
    assumeTrue(Epoll.isAvailable(), "the native epoll transport");
    MultiThreadIoEventLoopGroup group =
        new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
    AutoCloseable stop = () -> group.shutdownGracefully(0, 2, TimeUnit.SECONDS).sync();
    cleanup.track(stop);
    loop = group.next();
    sink = cleanup.track(new ServerSocket(0, 50, InetAddress.getLoopbackAddress()));
    sink.setSoTimeout(5000);
    sinkAddress = new InetSocketAddress(InetAddress.getLoopbackAddress(), sink.getLocalPort());
  }

  /** A backend connection opened mid-batch must not be closed by the FIN while it connects. */
  @Test
  void aConnectionOpenedMidBatchNeverGetsTheEventOfTheNumberItReuses() throws Exception {
    int reused = 0;
    for (int attempt = 0; attempt < 20 && reused < 3; attempt++) {
      AtomicReference<ChannelFuture> opened = new AtomicReference<>();
      Batch b =
          batch(
              () ->
                  opened.set(
                      Connector.connect(
                          loop,
                          EpollSocketChannel::new,
                          ch -> {},
                          new ChannelInboundHandlerAdapter(),
                          sinkAddress)),
              () -> {});
      await()
          .atMost(Duration.ofSeconds(5))
          .until(() -> opened.get() != null && opened.get().isDone());
      cleanup.track(sink.accept());
      Channel ch = opened.get().channel();
      if (((EpollSocketChannel) ch).fd().intValue() == b.closedFd) {
        reused++;
        assertThat(opened.get().cause()).as("the connect of the new connection").isNull();
        assertThat(ch.isActive()).isTrue();
      }
      ch.close().syncUninterruptibly();
      b.close();
    }
    assertThat(reused).as("attempts where the new socket had the closed number").isPositive();
  }

  /**
   * A connection a listener on the loop accepts mid-batch must not get the FIN either: Netty never
   * clears that flag, and the first splice from the connection would end its input.
   */
  @Test
  void aConnectionAcceptedMidBatchNeverGetsTheEventOfTheNumberItReuses() throws Exception {
    int reused = 0;
    for (int attempt = 0; attempt < 20 && reused < 3; attempt++) {
      Channel target = connect(new ChannelInboundHandlerAdapter());
      Socket targetPeer = cleanup.track(sink.accept());
      targetPeer.setSoTimeout(5000);
      AtomicReference<Channel> accepted = new AtomicReference<>();
      AtomicBoolean inputEnded = new AtomicBoolean();
      Channel listener = spliceListener(target, accepted, inputEnded);
      Socket client = cleanup.track(new Socket());
      Batch b = batch(() -> {}, () -> client.connect(listener.localAddress(), 2000));
      await().atMost(Duration.ofSeconds(5)).until(() -> accepted.get() != null);
      // A byte through the splice: the first splice-in is where a stale FIN would end the input.
      client.getOutputStream().write('x');
      assertThat(targetPeer.getInputStream().read()).isEqualTo('x');
      if (((EpollSocketChannel) accepted.get()).fd().intValue() == b.closedFd) {
        reused++;
        assertThat(inputEnded).as("the accepted connection's input ended").isFalse();
      }
      accepted.get().close().syncUninterruptibly();
      listener.close().syncUninterruptibly();
      target.close().syncUninterruptibly();
      b.close();
    }
    assertThat(reused).as("attempts where the accepted socket had the closed number").isPositive();
  }

  /** Accepts connections that splice everything to {@code target}, as the L4 relay can. */
  private Channel spliceListener(
      Channel target, AtomicReference<Channel> accepted, AtomicBoolean inputEnded) {
    return new ServerBootstrap()
        .group(loop, loop)
        .channel(EpollServerSocketChannel.class)
        .handler(KeptEpollChannels.ACCEPTED)
        .childOption(ChannelOption.ALLOW_HALF_CLOSURE, true)
        .childHandler(
            new ChannelInboundHandlerAdapter() {
              @Override
              // spliceTo is deprecated in Netty 4.2 with nothing to replace it; the relay uses it.
              @SuppressWarnings("deprecation")
              public void channelActive(ChannelHandlerContext ctx) {
                EpollSocketChannel ch = (EpollSocketChannel) ctx.channel();
                ch.spliceTo((EpollSocketChannel) target, Integer.MAX_VALUE);
                accepted.set(ch);
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
  }

  /** The connections of one built batch, and the number the doomed one had. */
  private record Batch(int closedFd, Channel trigger) {
    void close() {
      trigger.close().syncUninterruptibly();
    }
  }

  private interface Step {
    void run() throws Exception;
  }

  /**
   * Builds a batch: the trigger's read closes the doomed connection, then runs {@code onTrigger}
   * (on the loop, mid-batch); {@code between} makes the new socket's source ready after the trigger
   * and before the doomed connection's FIN.
   */
  private Batch batch(Runnable onTrigger, Step between) throws Exception {
    Channel doomed = connect(new ChannelInboundHandlerAdapter());
    Socket doomedPeer = cleanup.track(sink.accept());
    int closedFd = ((EpollSocketChannel) doomed).fd().intValue();
    AtomicBoolean fired = new AtomicBoolean();
    Channel trigger =
        connect(
            new ChannelInboundHandlerAdapter() {
              @Override
              public void channelRead(ChannelHandlerContext ctx, Object msg) {
                ((ByteBuf) msg).release();
                if (fired.compareAndSet(false, true)) {
                  doomed.close(); // the number is free from here on
                  onTrigger.run();
                }
              }
            });
    Socket triggerPeer = cleanup.track(sink.accept());
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
    try {
      triggerPeer.getOutputStream().write(1);
      between.run();
      doomedPeer.shutdownOutput(); // the doomed connection's pending event: EPOLLIN | EPOLLRDHUP
    } finally {
      release.countDown();
    }
    return new Batch(closedFd, trigger);
  }

  private Channel connect(ChannelInboundHandlerAdapter handler) {
    ChannelFuture f =
        Connector.connect(
            loop,
            EpollSocketChannel::new,
            ch -> {}, // Netty 4.2's epoll channels are all level-triggered, as spliceTo needs
            handler,
            sinkAddress);
    f.syncUninterruptibly();
    return f.channel();
  }
}
