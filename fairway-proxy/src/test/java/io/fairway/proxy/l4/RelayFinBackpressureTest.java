package io.fairway.proxy.l4;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fairway.proxy.FinCrossing;
import io.fairway.proxy.KeptEpollChannels;
import io.fairway.proxy.Transport;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.socket.DuplexChannel;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.RepeatedTest;

/**
 * The relay alone (two {@link Relay}s between an accepted and a connected channel, as {@link
 * TcpFrontend} and an HTTP tunnel set them up, epoll channels kept by {@link KeptEpollChannels}),
 * both channels in the test's hands: an upload that backpressure holds back while the backend sends
 * its download and its FIN must still arrive whole.
 *
 * <p>The reproducer of a Netty 4.2.18 io_uring bug (docs/testing.md, "io_uring: a write after the
 * peer's FIN"): there the backend connection stops writing for good once a write hits EAGAIN after
 * the backend's FIN. It failed in 2 to 3 of 6 repetitions per run here; on io_uring it runs only
 * with {@code -Dfairway.test.uringFinStall=true} (it is Netty's bug, with no clean way around it in
 * the relay), and on a failure prints both channels' io_uring state and the sockets' queues.
 */
class RelayFinBackpressureTest {
  private static final InetAddress LO = InetAddress.getLoopbackAddress();

  private final EventLoopGroup group = Transport.group(1);
  private final AtomicReference<Channel> clientSide = new AtomicReference<>();
  private final AtomicReference<Channel> backendSide = new AtomicReference<>();

  @AfterEach
  void close() throws Exception {
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
  }

  private Channel listen(InetSocketAddress backend) throws Exception {
    ServerBootstrap sb =
        new ServerBootstrap()
            .group(group)
            .channelFactory(Transport.serverChannel(LO))
            .handler(KeptEpollChannels.ACCEPTED) // as the proxy's listeners (epoll only)
            .childOption(ChannelOption.ALLOCATOR, Transport.ALLOCATOR)
            .childOption(ChannelOption.AUTO_READ, false)
            .childOption(ChannelOption.ALLOW_HALF_CLOSURE, true)
            .childOption(
                ChannelOption.WRITE_BUFFER_WATER_MARK,
                new WriteBufferWaterMark(32 * 1024, 64 * 1024))
            .childHandler(
                new ChannelInitializer<Channel>() {
                  @Override
                  protected void initChannel(Channel c) {
                    clientSide.set(c);
                    c.pipeline()
                        .addLast(
                            "connect",
                            new ChannelInboundHandlerAdapter() {
                              @Override
                              public void channelActive(ChannelHandlerContext ctx) {
                                connect(ctx.channel(), backend);
                              }
                            });
                  }
                });
    return sb.bind(new InetSocketAddress(LO, 0)).sync().channel();
  }

  private void connect(Channel client, InetSocketAddress backend) {
    Bootstrap b =
        new Bootstrap()
            .group(client.eventLoop())
            .channelFactory(
                Transport.EPOLL ? KeptEpollChannels.sockets(LO) : Transport.socketChannel(LO))
            .option(ChannelOption.ALLOCATOR, Transport.ALLOCATOR)
            .option(ChannelOption.ALLOW_HALF_CLOSURE, true)
            .handler(new Relay(client, -1));
    ChannelFuture f = b.connect(backend);
    f.addListener(
        x -> {
          if (!f.isSuccess()) {
            client.close();
            return;
          }
          backendSide.set(f.channel());
          client.pipeline().addLast(new Relay(f.channel(), -1));
          client.pipeline().remove("connect");
          client.config().setAutoRead(true);
        });
  }

  /**
   * The backend writes its download and its FIN, then reads the upload; the client uploads 4 MiB
   * and its FIN, and reads nothing until the backend is done. The downloads range over sizes the
   * buffers on the way take whole, so the backend's FIN reaches the proxy while the upload is still
   * held back (a size that does not fit just does not make that happen).
   */
  @RepeatedTest(6)
  void anUploadHeldBackByBackpressureArrivesAfterTheBackendsFin() throws Exception {
    assumeTrue(
        Transport.EPOLL || Boolean.getBoolean("fairway.test.uringFinStall"),
        "io_uring: Netty 4.2.18 stalls this upload (docs/testing.md, \"io_uring: a write after the"
            + " peer's FIN\"); -Dfairway.test.uringFinStall=true runs it");
    byte[] upload = new byte[4 << 20];
    for (int size = 256 << 10; size <= 2 << 20; size *= 2) {
      byte[] download = new byte[size];
      try (ServerSocket backend = FinCrossing.backend()) {
        Channel listener = listen((InetSocketAddress) backend.getLocalSocketAddress());
        try (Socket c = FinCrossing.client(listener.localAddress());
            Socket s = FinCrossing.accept(backend)) {
          FinCrossing.exchange(c, s, upload, download, FinCrossing::untilStall, () -> state(c, s));
        } finally {
          listener.close().sync();
        }
      }
    }
  }

  /** Both channels' transport state and the four sockets' queues, for the failure message. */
  private String state(Socket c, Socket s) throws Exception {
    StringBuilder b = new StringBuilder("the upload stalled\n");
    for (Channel ch : new Channel[] {clientSide.get(), backendSide.get()}) {
      b.append(ch).append('\n');
      b.append(ch.eventLoop().submit(() -> fields(ch)).get(5, TimeUnit.SECONDS)).append('\n');
    }
    Process p =
        new ProcessBuilder(
                "ss",
                "-tnmoi",
                "( "
                    + String.format(
                        "sport = :%1$d or dport = :%1$d or sport = :%2$d or dport = :%2$d",
                        s.getLocalPort(), c.getLocalPort())
                    + " )")
            .redirectErrorStream(true)
            .start();
    b.append(new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
    return b.toString();
  }

  /** The channel's flags, and the primitive fields of its classes (io_uring's ioState, ids...). */
  private static String fields(Channel ch) {
    StringBuilder b = new StringBuilder();
    b.append(" autoRead=").append(ch.config().isAutoRead());
    b.append(" writable=").append(ch.isWritable());
    var out = ch.unsafe().outboundBuffer();
    b.append(" pending=").append(out == null ? "none" : out.totalPendingWriteBytes());
    if (ch instanceof DuplexChannel d) {
      b.append(" inputShutdown=").append(d.isInputShutdown());
      b.append(" outputShutdown=").append(d.isOutputShutdown());
    }
    for (Class<?> k = ch.getClass(); k != null && k != Object.class; k = k.getSuperclass()) {
      for (Field f : k.getDeclaredFields()) {
        boolean constant = Modifier.isStatic(f.getModifiers());
        if (!f.getType().isPrimitive() || (constant && !f.getName().endsWith("_SCHEDULED"))) {
          continue;
        }
        try {
          f.setAccessible(true);
          Object v = f.get(ch);
          b.append(' ').append(f.getName()).append('=').append(v);
          if (v instanceof Long l && l != 0) {
            b.append("(0x").append(Long.toHexString(l)).append(')');
          }
        } catch (ReflectiveOperationException | RuntimeException e) {
          b.append(' ').append(f.getName()).append("=?");
        }
      }
    }
    return b.toString();
  }
}
