package io.fairway.proxy.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpHeaderValidationUtil;
import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.Http2Headers;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The request side of an exchange's HTTP/2 stream to a backend: the exchange writes the HTTP/1.1
 * request it would send any backend (head as {@link HeadWriter} made it, then the body as framed by
 * that head), and this maps it to frames as RFC 9113 section 8.3 says: the request line to {@code
 * :method :scheme :path}, Host to {@code :authority}, connection-specific fields dropped, a chunked
 * body to the chunks' data in DATA frames (the framing checked as on the HTTP/1.1 plane), its
 * trailer section to a trailing HEADERS frame, and the end of the body to END_STREAM.
 *
 * <p>Why from the HTTP/1.1 bytes rather than from the client's frames: the exchange is one code
 * path for every client and backend (retries, the queue, the counters, the forwarding headers the
 * head gains), and the head it writes is already the checked, rewritten request.
 */
final class H2RequestWriter extends ChannelOutboundHandlerAdapter {
  /**
   * Fields that mean something for one HTTP/1.1 connection only (RFC 9113 8.2.2, in Netty's list),
   * {@code trailer}, and {@code host}, which HTTP/2 carries as {@code :authority}.
   */
  private static boolean notForwarded(String name) {
    return HttpHeaderValidationUtil.isConnectionHeader(name, false)
        || name.equals("trailer")
        || name.equals("host");
  }

  private final boolean https;
  private boolean headSent;
  private long remaining;
  private @Nullable ChunkedBody chunked;
  private @Nullable ByteBuf cumulation;
  private boolean ended;

  /**
   * @param https the stream runs over TLS: {@code :scheme https}
   */
  H2RequestWriter(boolean https) {
    this.https = https;
  }

  @Override
  public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
    if (!(msg instanceof ByteBuf b)) {
      ctx.write(msg, promise);
      return;
    }
    if (ended) {
      b.release();
      promise.trySuccess();
      return;
    }
    try {
      if (!headSent) {
        head(ctx, b, promise);
      } else if (chunked != null) {
        chunks(ctx, chunked, b, promise);
      } else {
        long n = Math.min(remaining, b.readableBytes());
        remaining -= n;
        ended = remaining == 0;
        ctx.write(new DefaultHttp2DataFrame(b, ended), promise);
      }
    } catch (BadMessage e) {
      // The exchange checked this framing already; a failure here is a bug, not input.
      promise.tryFailure(new IllegalStateException("request not mappable to HTTP/2: " + e));
    }
  }

  private void head(ChannelHandlerContext ctx, ByteBuf b, ChannelPromise promise)
      throws BadMessage {
    byte[] bytes = ByteBufUtil.getBytes(b);
    b.release();
    HttpHead h = HeadParser.parseRequest(bytes, bytes.length);
    headSent = true;
    boolean body = h.chunked || h.contentLength > 0;
    if (h.chunked) {
      chunked = new ChunkedBody(400).keepTrailers();
    } else {
      remaining = Math.max(0, h.contentLength);
    }
    ended = !body;
    ctx.write(new DefaultHttp2HeadersFrame(headers(h), !body), promise);
  }

  /** The request's fields as HTTP/2 has them. */
  Http2Headers headers(HttpHead h) {
    Http2Headers out = new DefaultHttp2Headers(false, h.count + 5);
    out.method(h.method()).scheme(https ? "https" : "http").path(path(h));
    String host = h.header("host");
    if (host != null) {
      out.authority(host);
    }
    for (int i = 0; i < h.count; i++) {
      if (h.drop[i]) {
        continue;
      }
      String n = h.lowerName(i);
      if (!notForwarded(n)) {
        out.add(n, h.value(i));
      }
    }
    // Fairway reads trailers from an HTTP/2 backend, and gRPC servers require this field.
    out.set("te", "trailers");
    return out;
  }

  private static String path(HttpHead h) {
    String t = h.target();
    if (!h.absoluteForm()) {
      return t;
    }
    String rest =
        new String(
            h.bytes,
            h.authorityEnd,
            h.targetEnd - h.authorityEnd,
            java.nio.charset.StandardCharsets.ISO_8859_1);
    return rest.isEmpty() ? "/" : rest;
  }

  /** Chunked body bytes: their data go on as DATA frames, the last chunk ends the stream. */
  private void chunks(
      ChannelHandlerContext ctx, ChunkedBody chunked, ByteBuf b, ChannelPromise promise)
      throws BadMessage {
    ByteBuf in = b;
    if (cumulation != null) {
      in = ctx.alloc().buffer(cumulation.readableBytes() + b.readableBytes());
      in.writeBytes(cumulation).writeBytes(b);
      cumulation.release();
      b.release();
      cumulation = null;
    }
    List<Object> data = new ArrayList<>(2);
    boolean done = chunked.decode(in, data, false);
    if (in.isReadable() && !done) {
      // Only part of a size line or of a CRLF is left: data is passed on as it arrives.
      cumulation = ctx.alloc().buffer(in.readableBytes()).writeBytes(in);
    }
    in.release();
    Http2Headers trailers = done ? trailers(chunked.trailers()) : null;
    if (done) {
      ended = true;
      if (trailers == null) {
        data.add(Unpooled.EMPTY_BUFFER); // an empty DATA frame carries END_STREAM
      }
    }
    if (data.isEmpty() && trailers == null) {
      promise.trySuccess();
      return;
    }
    for (int i = 0; i < data.size(); i++) {
      boolean last = i == data.size() - 1 && trailers == null;
      ctx.write(
          new DefaultHttp2DataFrame((ByteBuf) data.get(i), last && done),
          last ? promise : ctx.voidPromise());
    }
    if (trailers != null) {
      ctx.write(new DefaultHttp2HeadersFrame(trailers, true), promise);
    }
  }

  /**
   * The chunked body's trailer fields as a trailing HEADERS frame, without the fields HTTP/2 does
   * not allow or that frame the message; null when none are left.
   */
  private static @Nullable Http2Headers trailers(List<String> fields) {
    Http2Headers out = null;
    for (int i = 0; i + 1 < fields.size(); i += 2) {
      String n = fields.get(i);
      if (notForwarded(n) || n.equals("content-length")) {
        continue;
      }
      if (out == null) {
        out = new DefaultHttp2Headers(false, fields.size() / 2);
      }
      out.add(n, fields.get(i + 1));
    }
    return out;
  }

  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) {
    if (cumulation != null) {
      cumulation.release();
      cumulation = null;
    }
  }
}
