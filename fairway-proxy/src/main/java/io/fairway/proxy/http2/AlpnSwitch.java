package io.fairway.proxy.http2;

import io.fairway.proxy.ProxyOptions;
import io.fairway.proxy.table.ProxyService;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.ApplicationProtocolNegotiationHandler;
import java.util.function.Consumer;

/**
 * Behind TLS on an HTTP listener: once the handshake is done, the protocol ALPN chose decides the
 * handlers, HTTP/2 for {@code h2}, HTTP/1.1 for {@code http/1.1} or a client that offered nothing.
 */
public final class AlpnSwitch extends ApplicationProtocolNegotiationHandler {
  private final ProxyService vs;
  private final ProxyOptions options;
  private final H2Stats stats;
  private final Consumer<ChannelHandlerContext> http1;

  /**
   * @param http1 adds the HTTP/1.1 handlers at the end of the context's pipeline
   */
  public AlpnSwitch(
      ProxyService vs, ProxyOptions options, H2Stats stats, Consumer<ChannelHandlerContext> http1) {
    super(ApplicationProtocolNames.HTTP_1_1);
    this.vs = vs;
    this.options = options;
    this.stats = stats;
    this.http1 = http1;
  }

  @Override
  protected void configurePipeline(ChannelHandlerContext ctx, String protocol) {
    if (ApplicationProtocolNames.HTTP_2.equals(protocol)) {
      H2Plane.install(ctx.pipeline(), vs, options, stats);
    } else {
      http1.accept(ctx);
    }
    ctx.fireChannelActive();
  }

  @Override
  protected void handshakeFailure(ChannelHandlerContext ctx, Throwable cause) {
    ctx.close(); // TlsHandshakes counted it
  }
}
