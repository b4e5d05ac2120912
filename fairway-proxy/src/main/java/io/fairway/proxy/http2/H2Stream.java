package io.fairway.proxy.http2;

import io.fairway.proxy.ProxyOptions;
import io.fairway.proxy.RateLimitedLog;
import io.fairway.proxy.http.ClientSide;
import io.fairway.proxy.http.Exchange;
import io.fairway.proxy.http.HttpHead;
import io.fairway.proxy.http.ResponseFraming;
import io.fairway.proxy.http.StreamExchange;
import io.fairway.proxy.proxyprotocol.ClientAddress;
import io.fairway.proxy.table.Lease;
import io.fairway.proxy.table.ProxyBackend;
import io.fairway.proxy.table.ProxyService;
import io.fairway.proxy.tls.TlsInfo;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.HttpHeaderValidationUtil;
import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.DefaultHttp2ResetFrame;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.codec.http2.Http2ResetFrame;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.util.AsciiString;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * One HTTP/2 stream, a child channel of {@link io.netty.handler.codec.http2.Http2MultiplexHandler}:
 * its request becomes an {@link Exchange} (through {@link StreamExchange}), to which this is the
 * {@link ClientSide}. The response head goes out as a HEADERS frame, its body as DATA frames.
 *
 * <p>Flow control is the child channel's: pausing reads of the stream withholds its WINDOW_UPDATEs,
 * so a slow backend holds the client back within the stream's window; a stream whose window is used
 * up is not writable, which stops reading the backend.
 */
final class H2Stream extends ChannelInboundHandlerAdapter implements ClientSide {
  /**
   * Response fields an HTTP/2 message must not carry (RFC 9113 8.2.2, in Netty's list), and {@code
   * trailer}, which announces HTTP/1.1 trailers an HTTP/2 response frames by itself.
   */
  private static boolean hopByHop(CharSequence name) {
    return HttpHeaderValidationUtil.isConnectionHeader(name, false)
        || AsciiString.contentEqualsIgnoreCase(name, "trailer");
  }

  private final ProxyService vs;
  private final ProxyOptions options;
  private final H2Stats stats;
  private final RateLimitedLog warnings;

  private final Channel stream;
  private final InetSocketAddress clientAddress;
  private final byte[] clientIp;
  private final TlsInfo tls;

  /** Set once, by the request's HEADERS; null until then, and after a refused one. */
  private @Nullable StreamExchange exchange;

  /** Set once, by the request's HEADERS, before {@link #exchange}; null until then. */
  private @Nullable H2Request request;

  private @Nullable ScheduledFuture<?> ticker;

  /** The request's own deadline, to the nanosecond; the ticker alone may be a second late. */
  private @Nullable ScheduledFuture<?> deadlineTimer;

  private boolean inRead;
  private boolean requestEnded;
  private boolean headSent;
  private boolean responseEnded;
  private boolean closed;

  /** The request is a gRPC call: failures are told as gRPC statuses in trailers. */
  private boolean grpc;

  /**
   * The response head, held until the next write: a response that ends with its head (gRPC's
   * trailers-only answer) goes out as one HEADERS frame with END_STREAM, as the backend sent it.
   */
  private @Nullable Http2Headers pendingHead;

  /**
   * @param stream the stream's child channel, whose pipeline this handler ends
   */
  H2Stream(
      ProxyService vs,
      ProxyOptions options,
      H2Stats stats,
      RateLimitedLog warnings,
      Http2StreamChannel stream) {
    this.vs = vs;
    this.options = options;
    this.stats = stats;
    this.warnings = warnings;
    this.stream = stream;
    this.clientAddress = ClientAddress.source(stream.parent());
    this.clientIp =
        clientAddress.getAddress().getHostAddress().getBytes(StandardCharsets.ISO_8859_1);
    this.tls = TlsInfo.of(stream.parent()); // h2 by ALPN: the handshake is done before any stream
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    stats.streamOpened();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    inRead = true;
    try {
      if (msg instanceof Http2HeadersFrame h) {
        headers(h);
      } else if (msg instanceof Http2DataFrame d) {
        data(d);
      } else if (msg instanceof Http2ResetFrame) {
        abandon();
      }
    } finally {
      ReferenceCountUtil.release(msg);
    }
  }

  private void headers(Http2HeadersFrame f) {
    if (exchange != null || request != null) {
      trailers(f);
      return;
    }
    try {
      request = H2Request.of(f.headers(), f.isEndStream());
    } catch (H2Request.Invalid e) {
      refuse(e.status, e.reason);
      return;
    }
    requestEnded = f.isEndStream();
    CharSequence type = f.headers().get("content-type");
    grpc = type != null && type.toString().startsWith("application/grpc");
    try {
      exchange = StreamExchange.start(this, vs, options, request.head(), !requestEnded);
    } catch (StreamExchange.Refused e) {
      refuse(e.status(), e.reason());
      return;
    }
    if (!exchange.done()) {
      long period = Math.max(10, Math.min(1000, vs.timeouts().shortestHttpMillis() / 4));
      ticker =
          stream.eventLoop().scheduleAtFixedRate(this::tick, period, period, TimeUnit.MILLISECONDS);
      long deadline = exchange.ownDeadline();
      if (deadline != 0) {
        deadlineTimer =
            stream
                .eventLoop()
                .schedule(this::tick, deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
      }
    }
  }

  private void refuse(int status, String why) {
    warnings.warn(vs.service().key(), "bad HTTP/2 request: " + why, "from " + clientAddress);
    if (status == 0) {
      stats.countMalformed();
      abandon(); // ends the exchange too, when the request was found malformed after it began
      stream.writeAndFlush(new DefaultHttp2ResetFrame(Http2Error.PROTOCOL_ERROR));
    } else {
      StreamExchange.refused(vs, status);
      sendErrorAndClose(status, why);
    }
  }

  private void data(Http2DataFrame d) {
    StreamExchange x = exchange;
    if (x == null || requestEnded) {
      return;
    }
    H2Request r = startedRequest();
    ByteBuf content = d.content();
    if (content.isReadable()) {
      if (r.chunked()) {
        ByteBuf c =
            stream
                .alloc()
                .directBuffer(content.readableBytes() + 12)
                .writeBytes(H2Request.chunkSize(content.readableBytes()))
                .writeBytes(content)
                .writeBytes(H2Request.CRLF);
        x.body(c);
      } else {
        x.body(content.retain());
      }
    }
    if (d.isEndStream()) {
      endRequest(x, r, H2Request.LAST_CHUNK);
    }
  }

  /**
   * The request's trailers, which end it. They go on in the chunked body's last chunk, which every
   * backend reads (an HTTP/2 one gets them back as HEADERS); a request sent with a content-length
   * has no place for them, so they are dropped and counted.
   */
  private void trailers(Http2HeadersFrame f) {
    StreamExchange x = exchange;
    if (x == null || requestEnded) {
      return; // refused already, or past its end
    }
    H2Request r = startedRequest();
    // Trailers without END_STREAM never get here: the codec resets that stream (RFC 9113 8.1).
    if (!r.chunked()) {
      stats.countTrailersDropped();
      endRequest(x, r, H2Request.LAST_CHUNK);
      return;
    }
    byte[] lastChunk;
    try {
      lastChunk = H2Request.lastChunk(f.headers());
    } catch (H2Request.Invalid e) {
      refuse(0, e.reason);
      return;
    }
    endRequest(x, r, lastChunk);
  }

  /** The request an exchange was started for: {@link #request} is set before the exchange. */
  private H2Request startedRequest() {
    return Objects.requireNonNull(request, "an exchange starts from a mapped request");
  }

  private void endRequest(StreamExchange x, H2Request r, byte[] lastChunk) {
    requestEnded = true;
    if (r.chunked()) {
      x.body(Unpooled.wrappedBuffer(lastChunk));
    }
    x.end();
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    inRead = false;
    if (exchange != null) {
      exchange.flushBackend();
    }
    ctx.fireChannelReadComplete();
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    if (exchange != null) {
      exchange.clientWritabilityChanged(stream.isWritable());
    }
    ctx.fireChannelWritabilityChanged();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    abandon();
    ctx.fireChannelInactive();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    abandon();
    if (!(cause instanceof Http2Exception)) {
      ctx.close();
    }
    // A stream error of the codec: the multiplexer resets the stream with its error code
    // (STREAM_CLOSED, PROTOCOL_ERROR, FLOW_CONTROL_ERROR...); closing here first would say CANCEL.
  }

  /** The stream is gone (reset by the client, or its connection closed). */
  private void abandon() {
    closed = true;
    stopTimers();
    if (exchange != null) {
      exchange.abandon();
    }
    if (!responseEnded) {
      responseEnded = true;
      stats.streamClosed();
    }
  }

  private void stopTimers() {
    if (ticker != null) {
      ticker.cancel(false);
      ticker = null;
    }
    if (deadlineTimer != null) {
      deadlineTimer.cancel(false);
      deadlineTimer = null;
    }
  }

  private void tick() {
    if (exchange == null || exchange.done()) {
      stopTimers();
      return;
    }
    exchange.tick(System.nanoTime());
  }

  // ---- ClientSide

  @Override
  public Channel connection() {
    return stream;
  }

  @Override
  public Channel socket() {
    return stream.parent();
  }

  @Override
  public ByteBufAllocator alloc() {
    return stream.alloc();
  }

  @Override
  public EventLoop eventLoop() {
    return stream.eventLoop();
  }

  @Override
  public InetSocketAddress remoteAddress() {
    return clientAddress;
  }

  @Override
  public byte[] clientIp() {
    return clientIp;
  }

  @Override
  public String protocol() {
    return "HTTP/2.0";
  }

  @Override
  public @Nullable String tlsVersion() {
    return tls.version();
  }

  @Override
  public @Nullable String sni() {
    return tls.sni();
  }

  @Override
  public byte[] hostHeader() {
    throw new IllegalStateException("an HTTP/2 request always has a Host");
  }

  @Override
  public boolean closed() {
    return closed || !stream.isActive();
  }

  @Override
  public boolean inRead() {
    return inRead;
  }

  @Override
  public void notInRead() {
    inRead = false;
  }

  @Override
  public void activity() {}

  @Override
  public void write(Object msg) {
    stream.write(msg, stream.voidPromise());
  }

  @Override
  public boolean isWritable() {
    return stream.isWritable();
  }

  @Override
  public void pauseReading() {
    stream.config().setAutoRead(false);
  }

  @Override
  public void resumeReading() {
    if (!requestEnded && !stream.config().isAutoRead()) {
      stream.config().setAutoRead(true);
    }
  }

  @Override
  public void ended(Exchange e) {
    stopTimers();
  }

  @Override
  public void answered(boolean keepAlive) {
    stream.flush();
  }

  @Override
  public boolean framesBodies() {
    return true;
  }

  @Override
  public void interimHead(HttpHead h) {
    if (h.status() != 101) {
      write(new DefaultHttp2HeadersFrame(new DefaultHttp2Headers().status(status(h.status()))));
    }
  }

  @Override
  public void responseHead(HttpHead h, ResponseFraming f) {
    Http2Headers out = new DefaultHttp2Headers(false, h.headerCount() + 1);
    out.status(status(h.status()));
    for (int i = 0; i < h.headerCount(); i++) {
      if (h.hopByHop(i)) {
        continue;
      }
      String n = h.lowerName(i);
      if (!hopByHop(n)) {
        out.add(n, h.headerValue(i));
      }
    }
    headSent = true;
    pendingHead = out;
  }

  private void sendHead() {
    if (pendingHead != null) {
      write(new DefaultHttp2HeadersFrame(pendingHead));
      pendingHead = null;
    }
  }

  @Override
  public void responseTrailers(Http2Headers trailers) {
    sendHead();
    Http2Headers t = new DefaultHttp2Headers(false, trailers.size());
    for (java.util.Map.Entry<CharSequence, CharSequence> e : trailers) {
      if (!hopByHop(e.getKey())) {
        t.add(e.getKey(), e.getValue());
      }
    }
    endWith(new DefaultHttp2HeadersFrame(t, true));
  }

  private void endWith(Object lastFrame) {
    if (!responseEnded) {
      responseEnded = true;
      stats.streamClosed();
    }
    write(lastFrame);
  }

  /** A gRPC status in trailers (or a trailers-only answer): the call fails cleanly. */
  private void grpcStatus(int code, String message) {
    Http2Headers t = new DefaultHttp2Headers();
    if (!headSent) {
      t.status("200").add("content-type", "application/grpc");
      headSent = true;
    }
    sendHead();
    t.add("grpc-status", Integer.toString(code)).add("grpc-message", message);
    endWith(new DefaultHttp2HeadersFrame(t, true));
    stream.flush();
  }

  @Override
  public void deadlineExceeded() {
    if (closed()) {
      return;
    }
    if (grpc && !responseEnded) {
      closed = true;
      grpcStatus(4, "deadline exceeded at the proxy"); // DEADLINE_EXCEEDED
    } else {
      sendErrorAndClose(504, "The request's deadline passed.");
    }
  }

  private static CharSequence status(int s) {
    return Integer.toString(s);
  }

  @Override
  public void responseBody(ByteBuf b, boolean chunk) {
    sendHead();
    write(new DefaultHttp2DataFrame(b));
  }

  @Override
  public void responseEnd(boolean chunk) {
    if (responseEnded) {
      return; // ended by its trailers
    }
    if (pendingHead != null) {
      Http2Headers h = pendingHead;
      pendingHead = null;
      endWith(new DefaultHttp2HeadersFrame(h, true));
    } else {
      endWith(new DefaultHttp2DataFrame(Unpooled.EMPTY_BUFFER, true));
    }
  }

  @Override
  public void flush() {
    sendHead();
    stream.flush();
  }

  @Override
  public void sendErrorAndClose(int status, String detail) {
    if (closed()) {
      return;
    }
    if (headSent) {
      close();
      return;
    }
    closed = true;
    byte[] page = StreamExchange.errorPage(status, detail);
    Http2Headers h =
        new DefaultHttp2Headers()
            .status(status(status))
            .add("content-type", "text/html; charset=utf-8")
            .add("content-length", Integer.toString(page.length))
            .add("cache-control", "no-cache");
    headSent = true;
    stream.write(new DefaultHttp2HeadersFrame(h));
    stream.writeAndFlush(new DefaultHttp2DataFrame(Unpooled.wrappedBuffer(page), true));
    if (!responseEnded) {
      responseEnded = true;
      stats.streamClosed();
    }
  }

  /** Ends the stream: a reset (CANCEL) unless its response went out whole. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (grpc && headSent && !responseEnded && stream.isActive()) {
      // The backend failed mid-call: a gRPC client gets UNAVAILABLE rather than a bare reset.
      grpcStatus(14, "the server failed during the call");
      return;
    }
    pendingHead = null;
    if (!responseEnded) {
      stream.writeAndFlush(new DefaultHttp2ResetFrame(Http2Error.CANCEL));
    } else {
      stream.flush();
    }
  }

  @Override
  public void startTunnel(Channel backend, ProxyBackend rs, Lease lease, HttpHead request) {
    // An HTTP/2 request never asks for a protocol switch (Upgrade is refused as malformed).
    backend.close();
    lease.close();
    close();
  }
}
