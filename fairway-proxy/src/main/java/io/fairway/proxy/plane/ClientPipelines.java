package io.fairway.proxy.plane;

import io.fairway.proxy.ProxyOptions;
import io.fairway.proxy.http.HttpFrontend;
import io.fairway.proxy.http.StrictRequestDecoder;
import io.fairway.proxy.http2.AlpnSwitch;
import io.fairway.proxy.http2.H2Stats;
import io.fairway.proxy.http2.H2cDetector;
import io.fairway.proxy.l4.TcpFrontend;
import io.fairway.proxy.l4.TrafficMeter;
import io.fairway.proxy.proxyprotocol.ProxyHeaderReader;
import io.fairway.proxy.proxyprotocol.ProxyProtocolStats;
import io.fairway.proxy.table.Drain;
import io.fairway.proxy.table.ListenerSpec;
import io.fairway.proxy.table.Mode;
import io.fairway.proxy.table.ProxyService;
import io.fairway.proxy.tls.ServerTls;
import io.fairway.proxy.tls.TlsContexts;
import io.fairway.proxy.tls.TlsHandshakes;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds each accepted client connection's pipeline from its service's spec as of now: TLS
 * termination, the HTTP/1.1 or HTTP/2 frontend or the L4 relay, and the PROXY header reader in
 * front of them. The one place that knows every frontend, so that no frontend needs to know how
 * another is set up and the table ({@code io.fairway.proxy.table}) knows none of them.
 */
final class ClientPipelines {
  private static final Logger log = LoggerFactory.getLogger(ClientPipelines.class);

  /** The table's options in force, read for each connection. */
  private final Supplier<ProxyOptions> options;

  private final TlsContexts tls;
  private final H2Stats h2Stats;
  private final Drain drain;

  ClientPipelines(Supplier<ProxyOptions> options, TlsContexts tls, H2Stats h2Stats, Drain drain) {
    this.options = options;
    this.tls = tls;
    this.h2Stats = h2Stats;
    this.drain = drain;
  }

  /** Builds an accepted connection's pipeline from the service's spec as of now. */
  void init(ProxyService vs, ProxyProtocolStats proxyProtocol, Channel ch) {
    drain.track(ch);
    ChannelPipeline p = ch.pipeline();
    ListenerSpec spec = vs.spec();
    if (spec.proxy().tls().enabled()) {
      initTls(vs, spec, ch);
      return;
    }
    if (vs.spec().mode() == Mode.HTTP && spec.proxy().tls().alpn().contains("h2")) {
      // h2c by prior knowledge: the first bytes tell HTTP/2's preface from an HTTP/1.1 request.
      p.addLast(new H2cDetector(vs, options.get(), h2Stats, c -> addHttp1(vs, c.pipeline())));
    } else if (vs.spec().mode() == Mode.HTTP) {
      addHttp1(vs, p);
    } else {
      // The idle timeout of an L4 connection is an IdleWatch fed by the meters, which also see
      // spliced bytes (an IdleStateHandler would not, and costs a listener per write).
      ch.config().setAutoRead(false);
      ch.config().setOption(ChannelOption.ALLOW_HALF_CLOSURE, true);
      TrafficMeter meter = new TrafficMeter(ch.config().getRecvByteBufAllocator());
      ch.config().setRecvByteBufAllocator(meter);
      p.addLast(new TcpFrontend(vs, options.get(), meter));
    }
    // Last, so in front of everything: the PROXY header is the first thing on the wire.
    if (vs.spec().proxy().proxyProtocol().accept()) {
      ProxyHeaderReader.install(p, proxyProtocol, vs.timeouts().requestHead(), vs.service().key());
    }
  }

  /**
   * A connection to a listener that terminates TLS: the SNI handler first; the HTTP handlers behind
   * it at once, the L4 relay only once the handshake succeeded.
   */
  private void initTls(ProxyService vs, ListenerSpec spec, Channel ch) {
    boolean http = spec.mode() == Mode.HTTP;
    ServerTls t;
    try {
      t = tls.get(spec.proxy().tls(), http);
    } catch (ServerTls.TlsException e) {
      log.warn("{}: {}; connection closed", vs.service().key(), e.getMessage());
      ch.close();
      return;
    }
    ChannelPipeline p = ch.pipeline().addLast(t.newHandler());
    ProxyOptions o = options.get();
    if (http) {
      // The protocol ALPN chose (h2 or http/1.1) decides the handlers once the handshake is done.
      p.addLast(new TlsHandshakes(tls.stats(), null))
          .addLast(new AlpnSwitch(vs, o, h2Stats, c -> addHttp1(vs, c.pipeline())));
      return;
    }
    ch.config().setOption(ChannelOption.ALLOW_HALF_CLOSURE, true);
    TrafficMeter meter = new TrafficMeter(ch.config().getRecvByteBufAllocator());
    ch.config().setRecvByteBufAllocator(meter);
    p.addLast(new TlsHandshakes(tls.stats(), () -> new TcpFrontend(vs, options.get(), meter)));
  }

  /** The HTTP/1.1 handlers at the end of {@code p}. */
  private void addHttp1(ProxyService vs, ChannelPipeline p) {
    ProxyOptions o = options.get();
    StrictRequestDecoder decoder = new StrictRequestDecoder(o);
    HttpFrontend frontend = new HttpFrontend(vs, o, p.channel(), decoder);
    // HttpFrontend keeps the idle timeout itself (its ticker), so no IdleStateHandler here.
    p.addLast(new HttpFrontend.ReadMarker(frontend)).addLast(decoder).addLast(frontend);
  }
}
