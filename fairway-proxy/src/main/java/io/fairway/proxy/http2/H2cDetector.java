package io.fairway.proxy.http2;

import io.fairway.proxy.ProxyOptions;
import io.fairway.proxy.table.VirtualService;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.http2.Http2CodecUtil;
import java.util.List;
import java.util.function.Consumer;

/**
 * The first handler of a plain listener that also speaks h2c: the client's first bytes tell whether
 * it starts with the HTTP/2 connection preface ({@code PRI * HTTP/2.0}, prior knowledge, RFC 9113
 * 3.3) or an HTTP/1.1 request. It then puts the handlers of that protocol behind itself, tells them
 * the connection is active, and leaves, passing on what it read.
 */
public final class H2cDetector extends ByteToMessageDecoder {
  private static final ByteBuf PREFACE = Http2CodecUtil.connectionPrefaceBuf();

  private final VirtualService vs;
  private final ProxyOptions options;
  private final H2Stats stats;
  private final Consumer<ChannelHandlerContext> http1;

  /**
   * @param http1 adds the HTTP/1.1 handlers after the given context's handler
   */
  public H2cDetector(
      VirtualService vs,
      ProxyOptions options,
      H2Stats stats,
      Consumer<ChannelHandlerContext> http1) {
    this.vs = vs;
    this.options = options;
    this.stats = stats;
    this.http1 = http1;
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    // Not passed on: the handlers that need it are not there yet.
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    int n = Math.min(in.readableBytes(), PREFACE.readableBytes());
    boolean same = ByteBufUtil.equals(in, in.readerIndex(), PREFACE, PREFACE.readerIndex(), n);
    if (same && n < PREFACE.readableBytes()) {
      return; // not enough yet to tell
    }
    if (same) {
      H2Plane.install(ctx.pipeline(), vs, options, stats);
    } else {
      http1.accept(ctx);
    }
    ctx.fireChannelActive();
    ctx.pipeline().remove(this);
  }
}
