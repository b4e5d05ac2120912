package io.fairway.proxy.http2;

import io.fairway.proxy.ProxyOptions;
import io.fairway.proxy.table.ProxyService;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpServerUpgradeHandler;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http2.Http2CodecUtil;
import io.netty.handler.codec.http2.HttpConversionUtil;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The first handler of a plain listener that also speaks h2c: the client's first bytes tell whether
 * it starts with the HTTP/2 connection preface ({@code PRI * HTTP/2.0}, prior knowledge, RFC 9113
 * 3.3), asks for {@code Upgrade: h2c} in its first request (RFC 7540 3.2), or is plain HTTP/1.1. It
 * then puts the handlers of that protocol behind itself, tells them the connection is active, and
 * leaves, passing on what it read.
 *
 * <p>Only a first request without a body is upgraded (as nginx and HAProxy, which do not upgrade at
 * all, would rather; curl's {@code --http2} asks so on a GET): one with a body, or whose {@code
 * Connection} does not name {@code Upgrade} and {@code HTTP2-Settings}, is served as HTTP/1.1 with
 * the upgrade ignored, which RFC 9110 7.8 allows. While the head is incomplete the request-head
 * timeout holds, as it does for HTTP/1.1.
 */
public final class H2cDetector extends ByteToMessageDecoder {
  private static final ByteBuf PREFACE = Http2CodecUtil.connectionPrefaceBuf();
  private static final byte[] HEAD_END = {'\r', '\n', '\r', '\n'};

  private final ProxyService vs;
  private final ProxyOptions options;
  private final H2Stats stats;
  private final Consumer<ChannelHandlerContext> http1;
  private @Nullable ScheduledFuture<?> deadline;

  /**
   * @param http1 adds the HTTP/1.1 handlers after the given context's handler
   */
  public H2cDetector(
      ProxyService vs, ProxyOptions options, H2Stats stats, Consumer<ChannelHandlerContext> http1) {
    this.vs = vs;
    this.options = options;
    this.stats = stats;
    this.http1 = http1;
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    // Not passed on: the handlers that need it are not there yet.
    long ms = Math.max(1, vs.timeouts().requestHead().toMillis());
    deadline = ctx.executor().schedule(() -> ctx.close(), ms, TimeUnit.MILLISECONDS);
  }

  @Override
  protected void handlerRemoved0(ChannelHandlerContext ctx) {
    if (deadline != null) {
      deadline.cancel(false);
    }
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
      int end = ByteBufUtil.indexOf(Unpooled.wrappedBuffer(HEAD_END), in);
      if (end < 0 && in.readableBytes() < options.maxHeaderSize()) {
        return; // the head is not whole yet
      }
      if (end >= 0 && asksForH2c(in.toString(in.readerIndex(), end - in.readerIndex(), ISO))) {
        upgrade(ctx);
      } else {
        http1.accept(ctx);
      }
    }
    ctx.fireChannelActive();
    ctx.pipeline().remove(this);
  }

  private static final java.nio.charset.Charset ISO = StandardCharsets.ISO_8859_1;

  /**
   * Whether a request head asks for h2c in a way Netty's upgrade handler accepts: {@code Upgrade}
   * names {@code h2c}, one {@code HTTP2-Settings} field, {@code Connection} names both, no body.
   */
  static boolean asksForH2c(String head) {
    boolean h2c = false;
    int settings = 0;
    boolean connection = false;
    String[] lines = head.split("\r\n", -1);
    for (int i = 1; i < lines.length; i++) {
      int colon = lines[i].indexOf(':');
      if (colon <= 0) {
        continue;
      }
      String name = lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT);
      String value = lines[i].substring(colon + 1).trim().toLowerCase(Locale.ROOT);
      switch (name) {
        case "upgrade" -> h2c |= tokens(value).contains("h2c");
        case "http2-settings" -> settings++;
        case "connection" -> {
          List<String> t = tokens(value);
          connection |= t.contains("upgrade") && t.contains("http2-settings");
        }
        case "content-length" -> {
          if (!value.equals("0")) {
            return false;
          }
        }
        case "transfer-encoding" -> {
          return false;
        }
        default -> {}
      }
    }
    return h2c && settings == 1 && connection;
  }

  private static List<String> tokens(String v) {
    return List.of(v.split("\\s*,\\s*"));
  }

  /**
   * Netty's HTTP/1.1 codec and upgrade handler for this one request: a 101, then HTTP/2 with the
   * request as stream 1. Should the upgrade still fail (a bad HTTP2-Settings), the request gets
   * 400.
   */
  private void upgrade(ChannelHandlerContext ctx) {
    HttpServerCodec http = new HttpServerCodec();
    Reaper reaper = new Reaper(); // in front of the HTTP/2 codec the upgrade puts in http's place
    ctx.pipeline()
        .addLast(reaper)
        .addLast(http)
        .addLast(new SchemeForStreamOne())
        .addLast(
            new HttpServerUpgradeHandler(
                http,
                protocol ->
                    "h2c".contentEquals(protocol)
                        ? H2Plane.upgradeCodec(vs, options, stats, reaper)
                        : null,
                0))
        .addLast(new NotUpgraded());
  }

  /** A relative request target has no scheme: stream 1's {@code :scheme} is {@code http}. */
  private static final class SchemeForStreamOne extends ChannelInboundHandlerAdapter {
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      if (msg instanceof HttpRequest r) {
        r.headers().set(HttpConversionUtil.ExtensionHeaderNames.SCHEME.text(), "http");
        ctx.pipeline().remove(this);
      }
      ctx.fireChannelRead(msg);
    }
  }

  /** A request the upgrade handler passed on: the upgrade it asked for could not be done. */
  private static final class NotUpgraded extends ChannelInboundHandlerAdapter {
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      if (msg instanceof HttpRequest) {
        ReferenceCountUtil.release(msg);
        DefaultFullHttpResponse r =
            new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.BAD_REQUEST);
        r.headers()
            .set(HttpHeaderNames.CONNECTION, "close")
            .setInt(HttpHeaderNames.CONTENT_LENGTH, 0);
        ctx.writeAndFlush(r).addListener(ChannelFutureListener.CLOSE);
        return;
      }
      ctx.fireChannelRead(msg);
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
      if (evt instanceof HttpServerUpgradeHandler.UpgradeEvent) {
        ctx.pipeline().remove(this);
      }
      ctx.fireUserEventTriggered(evt);
    }
  }
}
