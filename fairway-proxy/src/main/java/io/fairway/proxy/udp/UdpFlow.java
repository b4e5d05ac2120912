package io.fairway.proxy.udp;

import io.fairway.proxy.Connector;
import io.fairway.proxy.Transport;
import io.fairway.proxy.l4.TcpFrontend;
import io.fairway.proxy.table.Lease;
import io.fairway.proxy.table.ProxyBackend;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelConfig;
import io.netty.channel.ChannelFactory;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.ReflectiveChannelFactory;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.socket.DatagramPacket;
import io.netty.channel.unix.Socket;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.PortUnreachableException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client's UDP traffic to one real server: a socket connected to the server, so the kernel
 * delivers only that server's answers to it and reports an ICMP port unreachable as an error, which
 * ends the flow (the client's next datagram is scheduled afresh).
 *
 * <p>Ends when {@link UdpRelay} finds it idle for the udp timeout, when its real server is removed
 * from the table (the socket is one of the server's established channels), or, for a one-packet
 * flow, after the server's first answer.
 */
final class UdpFlow {
  private static final Logger log = LoggerFactory.getLogger(UdpFlow.class);

  /** Datagrams kept while the server socket is being set up (a few microseconds). */
  private static final int MAX_PENDING = 64;

  private static final ChannelFactory<? extends Channel> CHANNELS =
      new ReflectiveChannelFactory<>(Transport.datagramChannel());

  /** Every read takes one whole datagram; the allocator is immutable, so one for all flows. */
  private static final FixedRecvByteBufAllocator SIZING =
      new FixedRecvByteBufAllocator(UdpRelay.MAX_DATAGRAM);

  final InetSocketAddress client;
  final boolean oneShot;
  private final UdpRelay relay;
  private final Channel front;
  private final Lease lease;
  private final ArrayDeque<ByteBuf> pending = new ArrayDeque<>(2);
  private @Nullable Channel server;
  private boolean connected;
  private boolean closed;
  private long lastActivity = System.nanoTime();

  /**
   * The udp timeout as of {@link #lastActivity}: IPVS gives a flow the current one per datagram.
   */
  private long idleNanos;

  UdpFlow(UdpRelay relay, Channel front, InetSocketAddress client, Lease lease, boolean oneShot) {
    this.relay = relay;
    this.front = front;
    this.client = client;
    this.lease = lease;
    this.oneShot = oneShot;
    this.idleNanos = relay.idleNanos();
  }

  long lastActivity() {
    return lastActivity;
  }

  /** How long after {@link #lastActivity} the flow ends, as of that activity. */
  long idleNanos() {
    return idleNanos;
  }

  /** Opens the socket to the server; datagrams that arrive meanwhile wait in order. */
  void connect(Duration timeout) {
    ProxyBackend rs = lease.server;
    int connectMillis = (int) timeout.toMillis();
    // Through Connector, as TCP's backends: this runs while the loop dispatches its epoll events.
    ChannelFuture f =
        Connector.connect(
            front.eventLoop(),
            CHANNELS,
            ch -> {
              ChannelConfig cfg = ch.config();
              cfg.setAllocator(Transport.ALLOCATOR);
              cfg.setRecvByteBufAllocator(SIZING);
              cfg.setConnectTimeoutMillis(connectMillis);
            },
            new FromServer(),
            rs.address);
    Channel ch = f.channel();
    server = ch;
    rs.established.add(ch);
    ch.closeFuture().addListener(c -> ended());
    f.addListener(
        x -> {
          if (!f.isSuccess()) {
            log.warn(
                "{}: cannot open a UDP socket to {}: {}", rs, rs, TcpFrontend.reason(f.cause()));
            ch.close();
            return;
          }
          connected = true;
          ByteBuf b;
          while ((b = pending.poll()) != null) {
            send(b);
          }
          ch.flush();
        });
  }

  /** A datagram from the client; takes ownership of {@code data}. */
  void toServer(ByteBuf data) {
    lastActivity = System.nanoTime();
    idleNanos = relay.idleNanos();
    lease.server.inBytes.add(data.readableBytes());
    if (closed) {
      data.release();
    } else if (!connected) {
      if (pending.size() < MAX_PENDING) {
        pending.add(data);
      } else {
        data.release();
      }
    } else {
      send(data);
      Objects.requireNonNull(server, "connected").flush();
    }
  }

  private void send(ByteBuf data) {
    Channel server = Objects.requireNonNull(this.server, "sent only once connected");
    if (!data.isReadable()) {
      data.release();
      sendEmpty(server, null);
    } else if (server.isWritable()) {
      server.write(data, server.voidPromise());
    } else {
      data.release();
      relay.drop("send buffer full; dropped a datagram", "to " + lease.server);
    }
  }

  /**
   * Sends an empty datagram, which UDP allows and some protocols use as a keepalive: Netty's
   * transports skip writing empty buffers, so it goes straight to the socket (epoll only; the NIO
   * fallback drops it).
   */
  private void sendEmpty(Channel ch, @Nullable InetSocketAddress to) {
    if (!(ch instanceof EpollDatagramChannel e) || !(e.fd() instanceof Socket s)) {
      return;
    }
    try {
      if (to == null) {
        s.write(EMPTY, 0, 0);
      } else {
        s.sendTo(EMPTY, 0, 0, to.getAddress(), to.getPort());
      }
    } catch (IOException ex) {
      log.debug("{}: empty datagram for {} not sent: {}", lease.server, client, ex.toString());
    }
  }

  private static final ByteBuffer EMPTY = ByteBuffer.allocateDirect(0);

  /** Ends the flow: closes the server socket; the rest happens in {@link #ended()}. */
  void close() {
    if (server != null) {
      server.close();
    } else {
      ended();
    }
  }

  private void ended() {
    if (closed) {
      return;
    }
    closed = true;
    lease.server.established.remove(server);
    lease.closeFlow();
    ByteBuf b;
    while ((b = pending.poll()) != null) {
      b.release();
    }
    relay.closed(this);
  }

  /** The server's answers, sent back to the client from the virtual address. */
  private final class FromServer extends ChannelInboundHandlerAdapter {
    private boolean wrote;

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      lastActivity = System.nanoTime();
      idleNanos = relay.idleNanos();
      ByteBuf data = msg instanceof DatagramPacket p ? p.content() : (ByteBuf) msg;
      lease.server.outBytes.add(data.readableBytes());
      if (!data.isReadable()) {
        data.release();
        sendEmpty(front, client);
      } else if (front.isWritable()) {
        front.write(new DatagramPacket(data, client), front.voidPromise());
        wrote = true;
      } else {
        data.release();
        relay.drop("send buffer to clients full; dropped an answer", "to " + client);
      }
      if (oneShot) {
        ctx.close();
      }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
      if (wrote) {
        wrote = false;
        front.flush();
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      // ECONNREFUSED from an ICMP port unreachable: nobody listens there (any more). The flow
      // ends so the client's next datagram is scheduled again, maybe to a live server.
      if (cause instanceof PortUnreachableException) {
        log.debug("{}: port unreachable; flow of {} ended", lease.server, client);
      } else {
        log.debug("{}: flow of {} ended: {}", lease.server, client, cause.toString());
      }
      ctx.close();
    }
  }
}
