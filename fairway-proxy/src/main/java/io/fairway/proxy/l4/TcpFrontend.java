package io.fairway.proxy.l4;

import io.fairway.proxy.Connector;
import io.fairway.proxy.KeptEpollChannels;
import io.fairway.proxy.ProxyOptions;
import io.fairway.proxy.RateLimitedLog;
import io.fairway.proxy.Transport;
import io.fairway.proxy.accesslog.AccessRecord;
import io.fairway.proxy.proxyprotocol.ClientAddress;
import io.fairway.proxy.proxyprotocol.ProxyHeaderWriter;
import io.fairway.proxy.table.Lease;
import io.fairway.proxy.table.Pick;
import io.fairway.proxy.table.ProxyBackend;
import io.fairway.proxy.table.ProxyService;
import io.fairway.proxy.table.SlotWaiter;
import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelConfig;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.epoll.EpollChannelConfig;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.DuplexChannel;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Future;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import javax.net.ssl.SSLException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An accepted L4 client connection: chooses a server, connects (trying the next server when a
 * connect fails), then relays both ways until either side closes.
 *
 * <p>The client channel is accepted with auto-read off, so nothing is read (and nothing buffered)
 * until the backend connection exists.
 */
public final class TcpFrontend extends ChannelInboundHandlerAdapter {
  private static final Logger log = LoggerFactory.getLogger(TcpFrontend.class);

  /** Warnings a fault repeats per connection: each kind once per 10 s, with counts. */
  private static final RateLimitedLog warnings =
      new RateLimitedLog(log, java.time.Duration.ofSeconds(10));

  private final ProxyService vs;
  private final ProxyOptions options;
  private final TrafficMeter clientMeter;

  /** Sizes the backend's reads: the channel's default, stateless, so one for all. */
  private static final AdaptiveRecvByteBufAllocator SIZING = new AdaptiveRecvByteBufAllocator();

  /**
   * Servers whose connect failed. Empty and shared until one fails, as what follows is: almost
   * every connection connects at once, and its set-up's garbage is resident memory (see {@link
   * Connector}).
   */
  private Set<ProxyBackend> tried = Set.of();

  /** This connection's access-log record; null when the service has no access log. */
  private @Nullable ConnectionLog record;

  /** What the client sent (or its FIN) before the backend connection existed; null: nothing. */
  private @Nullable List<Object> early;

  private boolean inputShutdown;

  public TcpFrontend(ProxyService vs, ProxyOptions options, TrafficMeter clientMeter) {
    this.vs = vs;
    this.options = options;
    this.clientMeter = clientMeter;
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    Channel client = ctx.channel();
    io.fairway.proxy.accesslog.AccessLog log = vs.accessLog();
    if (log != io.fairway.proxy.accesslog.AccessLog.NONE) {
      record =
          new ConnectionLog(
              log,
              vs.service().key().toString(),
              client,
              ClientAddress.source(client),
              clientMeter);
    }
    connect(client);
  }

  private void connect(Channel client) {
    InetSocketAddress ca = ClientAddress.source(client);
    Pick pick =
        vs.schedule(
            ca,
            null,
            tried,
            ProxyService.NO_ALT,
            client.eventLoop(),
            vs.timeouts().connect(),
            new Waiter(client, ca));
    if (pick instanceof Pick.Queued) {
      return; // nothing is read from the client meanwhile: auto-read is off
    }
    if (pick instanceof Lease lease) {
      connect(client, lease);
    } else {
      refuse(client, ca, "no destination available");
    }
  }

  /** What this connection is told if it queues for a slot ({@link ProxyService#schedule}). */
  private final class Waiter implements SlotWaiter {
    private final Channel client;
    private final InetSocketAddress ca;

    Waiter(Channel client, InetSocketAddress ca) {
      this.client = client;
      this.ca = ca;
    }

    @Override
    public boolean gone() {
      return !client.isActive();
    }

    @Override
    public void resume(Pick pick) {
      if (pick instanceof Lease lease) {
        connect(client, lease);
      } else {
        refuse(client, ca, "no destination available"); // nothing to wait for any more
      }
    }

    @Override
    public void timedOut() {
      refuse(
          client,
          ca,
          "every server full (uthreshold or max_conns) for " + vs.timeouts().connect(),
          AccessRecord.Termination.QUEUE_TIMEOUT);
    }
  }

  private void refuse(Channel client, InetSocketAddress ca, String why) {
    // After failed connects, every server there was failed; otherwise there was none.
    refuse(
        client,
        ca,
        why,
        tried.isEmpty()
            ? AccessRecord.Termination.NO_SERVER
            : AccessRecord.Termination.SERVER_FAILED);
  }

  private void refuse(
      Channel client, InetSocketAddress ca, String why, AccessRecord.Termination cause) {
    if (record != null && client.isActive()) {
      record.ended(cause);
    }
    warnings.warn(
        vs.service().key(),
        why,
        "for " + ca + (tried.isEmpty() ? "" : " (connect failed to " + tried + ")"));
    client.close();
  }

  private void connect(Channel client, Lease lease) {
    ProxyBackend rs = lease.server;
    if (record != null) {
      record.leased(rs);
    }
    SslHandler tls;
    try {
      tls = vs.backendTls(rs, Transport.ALLOCATOR);
    } catch (SSLException e) {
      failed(client, lease, rs, "TLS to " + rs + ": " + reason(e));
      return;
    }
    TrafficMeter backendMeter = new TrafficMeter(SIZING);
    long splice = spliceThreshold(client, tls);
    ChannelFuture f = open(client, rs, tls, backendMeter, splice);
    f.addListener(x -> opened(client, lease, f, tls, backendMeter, splice));
  }

  /** The bytes after which the relay splices instead of copying, or -1: it never does. */
  private long spliceThreshold(Channel client, @Nullable SslHandler tls) {
    return options.splices()
            // spliceTo needs level-triggered channels: Netty 4.2's epoll channels all are.
            && client.config() instanceof EpollChannelConfig
            // Spliced bytes bypass the pipeline, and so its TLS.
            && !io.fairway.proxy.tls.TlsHandshakes.isTls(client)
            && tls == null
        ? options.spliceThreshold()
        : -1;
  }

  /** Starts the connect to {@code rs}, its pipeline ending in {@code tls} or else the relay. */
  private ChannelFuture open(
      Channel client,
      ProxyBackend rs,
      @Nullable SslHandler tls,
      TrafficMeter backendMeter,
      long splice) {
    java.net.InetAddress to = rs.address.getAddress();
    int connectMillis = (int) vs.timeouts().connect().toMillis();
    return Connector.connect(
        client.eventLoop(),
        Transport.EPOLL ? KeptEpollChannels.sockets(to) : Transport.socketChannel(to),
        ch -> {
          ChannelConfig cfg = ch.config();
          cfg.setAllocator(Transport.ALLOCATOR);
          cfg.setConnectTimeoutMillis(connectMillis);
          cfg.setOption(ChannelOption.ALLOW_HALF_CLOSURE, true);
          cfg.setRecvByteBufAllocator(backendMeter);
        },
        // With TLS, the relay to the client comes once the handshake succeeded: a failed one
        // closes this channel, and the relay would close the client with it instead of letting
        // the next server be tried.
        tls != null ? tls : new Relay(client, splice),
        rs.address);
  }

  /**
   * The connect {@code f} under {@code lease} is done: a failed one tries the next server, a plain
   * one relays, one with TLS first sends the PROXY header and waits for the handshake.
   */
  private void opened(
      Channel client,
      Lease lease,
      ChannelFuture f,
      @Nullable SslHandler tls,
      TrafficMeter backendMeter,
      long splice) {
    ProxyBackend rs = lease.server;
    if (!f.isSuccess()) {
      lease.refused();
      failed(client, lease, rs, "connect to " + rs + " failed: " + reason(f.cause()));
      return;
    }
    if (tls == null) {
      connected(client, lease, f.channel(), backendMeter, splice, true);
      return;
    }
    // The PROXY header goes in clear before the ClientHello, as a server that terminates TLS behind
    // it reads them: written now, before the channel is active and the handler starts its
    // handshake, whose first flush sends both in order.
    ProxyHeaderWriter.write(f.channel(), vs.sendProxy(rs), client);
    // A server whose certificate does not verify is a failed connect: the next one is tried.
    tls.handshakeFuture()
        .addListener(h -> handshaken(client, lease, f.channel(), h, backendMeter, splice));
  }

  /** The TLS handshake {@code h} with the backend is done: the relay starts, or the next server. */
  private void handshaken(
      Channel client,
      Lease lease,
      Channel backend,
      Future<?> h,
      TrafficMeter backendMeter,
      long splice) {
    if (h.isSuccess()) {
      // Added inside the handshake's completion, before the SslHandler passes on anything it
      // decrypted after it.
      backend.pipeline().addLast(new Relay(client, splice));
      connected(client, lease, backend, backendMeter, splice, false);
    } else {
      backend.close();
      ProxyBackend rs = lease.server;
      failed(client, lease, rs, "TLS handshake with " + rs + " failed: " + reason(h.cause()));
    }
  }

  /** A connect to {@code rs} failed: the next server is tried. */
  private void failed(Channel client, Lease lease, ProxyBackend rs, String why) {
    lease.close();
    if (tried.isEmpty()) {
      tried = new HashSet<>(2);
    }
    tried.add(rs);
    warnings.warn(vs.service().key(), why, null);
    if (client.isActive()) {
      connect(client);
    }
  }

  /**
   * The backend is connected (and its TLS handshake done): relays both ways. {@code writeHeader} is
   * false where the PROXY header already went ahead of the handshake.
   */
  private void connected(
      Channel client,
      Lease lease,
      Channel backend,
      TrafficMeter backendMeter,
      long splice,
      boolean writeHeader) {
    ProxyBackend rs = lease.server;
    if (!client.isActive()) {
      lease.close();
      backend.close();
      return;
    }
    clientMeter.countInto(rs.inBytes);
    backendMeter.countInto(rs.outBytes);
    backendMeter.onFirstRead(lease::served);
    if (record != null) {
      record.connected(backend, backendMeter);
    }
    // Established first: a reload that changes the idle timeout after the read below finds
    // this connection (IdleWatch.retime) and so never leaves it on the old one.
    rs.established.add(client);
    IdleWatch.start(client, clientMeter, backend, backendMeter, vs.timeouts().idle().toNanos());
    client
        .closeFuture()
        .addListener(
            c -> {
              rs.established.remove(client);
              // Nothing at all from the server, to a client that had asked something, is a
              // refusal (a backend at capacity closes the connections it cannot serve); it
              // teaches the server's learned limit.
              if (backendMeter.total() == 0 && clientMeter.total() > 0) {
                lease.refused();
              }
              lease.close();
            });
    boolean header = writeHeader && ProxyHeaderWriter.write(backend, vs.sendProxy(rs), client);
    boolean sent = early != null || header;
    if (early != null) {
      for (Object m : early) {
        backend.write(m, backend.voidPromise());
      }
      early = null;
    }
    if (inputShutdown && backend instanceof DuplexChannel) {
      Relay.shutdownOutputAfterFlush(backend);
    } else if (sent) {
      backend.flush();
    }
    client.pipeline().addLast(new Relay(backend, splice));
    client.pipeline().remove(this);
    if (!inputShutdown) {
      client.config().setAutoRead(true); // after a FIN there is nothing left to read
    }
    // The backend reads from the moment it is active (auto-read, EPOLLIN armed at
    // registration): its relay to the client is there from its creation.
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    // Auto-read is off until the backend is connected, but a FIN (EPOLLRDHUP) makes the
    // transport read what is there; it is kept and sent first.
    if (early == null) {
      early = new ArrayList<>(1);
    }
    early.add(msg);
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
    if (evt instanceof ChannelInputShutdownEvent) {
      inputShutdown = true;
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    if (early != null) {
      for (Object m : early) {
        ReferenceCountUtil.release(m);
      }
      early = null;
    }
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    ctx.close();
  }

  public static String reason(@Nullable Throwable t) {
    if (t == null) {
      return "unknown";
    }
    String m = t.getMessage();
    return m == null ? t.getClass().getSimpleName() : m;
  }
}
