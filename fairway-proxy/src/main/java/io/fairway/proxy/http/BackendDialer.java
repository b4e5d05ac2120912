package io.fairway.proxy.http;

import io.fairway.proxy.ProxyOptions;
import io.fairway.proxy.RateLimitedLog;
import io.fairway.proxy.ServiceTimeouts;
import io.fairway.proxy.Transport;
import io.fairway.proxy.accesslog.AccessRecord.Termination;
import io.fairway.proxy.l4.TcpFrontend;
import io.fairway.proxy.proxyprotocol.ProxyHeaderWriter;
import io.fairway.proxy.table.Lease;
import io.fairway.proxy.table.Pick;
import io.fairway.proxy.table.ProxyBackend;
import io.fairway.proxy.table.ProxyService;
import io.fairway.proxy.table.SlotWaiter;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.concurrent.Future;
import java.net.InetSocketAddress;
import javax.net.ssl.SSLException;
import org.jspecify.annotations.Nullable;

/**
 * Gets an {@link Exchange} its backend: a server from the service's scheduler (or a place in its
 * queue while every server is full), then a connection to it: a pooled keep-alive one, a new one,
 * or a stream of the server's HTTP/2 connection. A connect that fails goes to the next server; when
 * none is left the client gets a 503 (no server) or 502 (every one failed).
 *
 * <p>Kept apart from the exchange because this is the part that waits on someone else's schedule
 * (the slot queue, a connect): whatever comes back is checked against the lease the exchange holds
 * now, and dropped when the exchange has moved on.
 */
final class BackendDialer implements SlotWaiter {
  private static final RateLimitedLog warnings = HttpFrontend.warnings;

  private final Exchange x;
  private final ClientSide client;
  private final ProxyService vs;
  private final ProxyOptions options;
  private final ServiceTimeouts timeouts;

  /** The request's scheduling key, or {@code null}: the client address stands for it. */
  private final @Nullable String key;

  /** The shard alt this request asks for ({@code alt_header}), or {@link RequestAlt#NONE}. */
  private final int askedAlt;

  private boolean waitingFresh;

  BackendDialer(Exchange x, ProxyOptions options) {
    this.x = x;
    this.client = x.client;
    this.vs = x.vs;
    this.options = options;
    this.timeouts = x.timeouts;
    this.key = vs.spec().keySource().extract(x.request);
    this.askedAlt = RequestAlt.of(vs.spec().selection(), x.request);
  }

  /** Chooses a server and gets a connection to it; {@code fresh} skips pooled connections. */
  void acquire(boolean fresh) {
    Pick p =
        vs.schedule(
            client.remoteAddress(),
            key,
            x.retries.tried(),
            askedAlt,
            client.eventLoop(),
            timeouts.connect(),
            this);
    if (p instanceof Pick.Queued) {
      x.waitSlot();
      waitingFresh = fresh;
      return;
    }
    acquire(p, fresh);
  }

  @Override
  public boolean gone() {
    return x.gone();
  }

  @Override
  public void resume(Pick p) {
    acquire(p, waitingFresh); // or the 503 of no server at all: nothing to wait for any more
  }

  /** No slot within the connect timeout: 503, as when there is no server. */
  @Override
  public void timedOut() {
    if (gone()) {
      return;
    }
    warnings.warn(
        vs.service().key(),
        "every server full (uthreshold or max_conns) for " + timeouts.connect(),
        x.request.method() + " " + x.request.target() + " from " + client.remoteAddress());
    x.trace.cause = Termination.QUEUE_TIMEOUT;
    x.generated(null, 503);
    x.end(false);
    client.sendErrorAndClose(503, "No server is available to handle this request.");
  }

  /** Goes on with the server a {@link Lease} is for, or answers when there is none. */
  private void acquire(Pick p, boolean fresh) {
    if (!(p instanceof Lease l)) {
      noServer(p != Pick.None.ALL_TRIED);
      return;
    }
    ProxyBackend rs = l.server;
    x.leased(l);
    if (vs.http2(rs)) {
      h2Stream(rs, l, fresh);
      return;
    }
    InetSocketAddress owner = ProxyHeaderWriter.owner(vs.sendProxy(rs), client.socket());
    Channel pooled = fresh ? null : BackendPool.of(rs).poll(client.eventLoop(), owner);
    if (pooled != null) {
      x.retries.attempt(true);
      x.attach(pooled);
      return;
    }
    long connectStart = System.nanoTime();
    ChannelFuture f = BackendConnect.open(rs, client.eventLoop(), options, timeouts, () -> tls(rs));
    ProxyHeaderWriter.onConnect(f, vs.sendProxy(rs), client.socket()); // before the request
    f.addListener(
        y -> {
          if (f.isSuccess() && x.lease == l && !gone()) {
            rs.http.connected(System.nanoTime() - connectStart);
          }
          connected(l, fresh, f.isSuccess() ? f.channel() : null, f.cause(), f.channel());
        });
  }

  /** A stream of the server's HTTP/2 connection on this loop ({@code http2}), opened if need be. */
  private void h2Stream(ProxyBackend rs, Lease l, boolean fresh) {
    boolean https = vs.backendTlsConfigured(rs);
    H2Link link =
        H2Links.of(rs)
            .get(
                client.eventLoop(),
                () -> H2Link.open(rs, client.eventLoop(), options, timeouts, () -> tls(rs)));
    Future<Http2StreamChannel> f =
        link.stream(
            new ChannelInitializer<Channel>() {
              @Override
              protected void initChannel(Channel ch) {
                H2ResponseReader reader = new H2ResponseReader();
                ch.pipeline()
                    .addLast(
                        new H2RequestWriter(https), reader, new HttpBackendHandler(rs, reader));
              }
            });
    f.addListener(
        y -> connected(l, fresh, f.isSuccess() ? f.getNow() : null, f.cause(), f.getNow()));
  }

  private @Nullable SslHandler tls(ProxyBackend rs) {
    try {
      return vs.backendTls(rs, Transport.ALLOCATOR);
    } catch (SSLException e) {
      // Fails this connect (Connector): the exchange's ordinary connect failure.
      throw new IllegalStateException("TLS to " + rs + ": " + e.getMessage(), e);
    }
  }

  /**
   * A backend connection (or HTTP/2 stream) asked for under lease {@code l} is there ({@code ch}),
   * or failed with {@code cause}: the request goes on, or to the next server.
   */
  private void connected(
      Lease l,
      boolean fresh,
      @Nullable Channel ch,
      @Nullable Throwable cause,
      @Nullable Channel opened) {
    ProxyBackend rs = l.server;
    if (client.closed() || x.state() == Exchange.State.DONE || x.lease != l) {
      l.closeRequest();
      if (opened != null) {
        opened.close();
      }
      return;
    }
    if (ch != null) {
      x.retries.attempt(false);
      client.notInRead();
      x.attach(ch);
      return;
    }
    warnings.warn(
        vs.service().key(), "connect to " + rs + " failed: " + TcpFrontend.reason(cause), null);
    rs.http.connectFailed();
    l.refused();
    l.closeRequest();
    x.lease = null;
    x.server = null;
    x.retries.connectFailed(rs);
    acquire(fresh);
  }

  /** No server at all (503), or every one failed (502). */
  private void noServer(boolean none) {
    warnings.warn(
        vs.service().key(),
        none ? "no destination available" : "every destination failed",
        (none ? "" : x.retries.tried() + " ")
            + x.request.method()
            + " "
            + x.request.target()
            + " from "
            + client.remoteAddress());
    x.trace.cause = none ? Termination.NO_SERVER : Termination.SERVER_FAILED;
    x.generated(none ? null : x.retries.lastFailed(), none ? 503 : 502);
    x.end(false);
    client.sendErrorAndClose(
        none ? 503 : 502,
        none
            ? "No server is available to handle this request."
            : "The server could not be reached.");
  }
}
