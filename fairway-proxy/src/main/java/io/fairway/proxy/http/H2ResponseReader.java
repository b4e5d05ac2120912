package io.fairway.proxy.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2GoAwayFrame;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.codec.http2.Http2ResetFrame;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * The response side of an exchange's HTTP/2 stream to a backend: frames become what {@link
 * ResponseDecoder} makes of an HTTP/1.1 backend's bytes (an {@link HttpHead}, body slices, {@link
 * StrictRequestDecoder#END}), so the exchange streams them the same way. A body without {@code
 * content-length} is a chunked one for an HTTP/1.1 client, whose trailers it gets in the last chunk
 * when it asked for them ({@code TE: trailers}); an HTTP/2 client gets them as {@link
 * ResponseTrailers}.
 *
 * <p>A stream the backend did not process (RST_STREAM REFUSED_STREAM, or a GOAWAY whose last stream
 * id is below it) is reported as {@link Refused} before any response: the exchange retries it as a
 * refused connection (RFC 9113 8.7).
 */
final class H2ResponseReader extends ChannelInboundHandlerAdapter implements ResponseExpectation {
  /** The backend did not process the stream: safe to send elsewhere. */
  static final class Refused extends Exception {
    private static final long serialVersionUID = 1L;

    /** The message, never null (unlike {@link #getMessage} as the compiler sees it). */
    final String reason;

    Refused(String why) {
      super(why, null, false, false);
      this.reason = why;
    }
  }

  private boolean headRequest;
  private boolean dechunk;
  private boolean trailers;

  /** The final head went to the exchange. */
  private boolean headSeen;

  /** The body goes to the client with chunk framing made here. */
  private boolean chunk;

  private boolean ended;

  @Override
  public void expect(boolean headRequest, boolean dechunk, boolean upgrade, boolean trailers) {
    this.headRequest = headRequest;
    this.dechunk = dechunk;
    this.trailers = trailers;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (ended) {
      ReferenceCountUtil.release(msg);
      return;
    }
    if (msg instanceof Http2HeadersFrame f) {
      if (headSeen) {
        trailers(ctx, f.headers());
      } else {
        head(ctx, f);
      }
      if (f.isEndStream()) {
        end(ctx);
      }
    } else if (msg instanceof Http2DataFrame d) {
      data(ctx, d);
    } else {
      ReferenceCountUtil.release(msg);
    }
  }

  private void head(ChannelHandlerContext ctx, Http2HeadersFrame f) {
    Http2Headers in = f.headers();
    int status;
    try {
      status = in.status() == null ? -1 : Integer.parseInt(in.status().toString());
    } catch (NumberFormatException e) {
      status = -1;
    }
    if (status < 100 || status > 999 || status == 101) {
      malformed(ctx, "response without a valid :status");
      return;
    }
    boolean interim = status < 200;
    boolean bodiless = headRequest || status == 204 || status == 304 || f.isEndStream();
    StringBuilder b = new StringBuilder(256);
    b.append("HTTP/1.1 ").append(status).append(' ');
    b.append(HttpResponseStatus.valueOf(status).reasonPhrase()).append("\r\n");
    boolean length = false;
    for (Map.Entry<CharSequence, CharSequence> e : in) {
      CharSequence n = e.getKey();
      if (n.length() == 0 || n.charAt(0) == ':') {
        continue;
      }
      length |= "content-length".contentEquals(n);
      b.append(n).append(": ").append(e.getValue()).append("\r\n");
    }
    if (!interim) {
      headSeen = true;
      if (!bodiless && !length) {
        chunk = !dechunk;
        b.append("transfer-encoding: chunked\r\n");
      } else if (f.isEndStream() && !length && !headRequest && status != 204 && status != 304) {
        b.append("content-length: 0\r\n");
      }
    }
    b.append("\r\n");
    byte[] bytes = b.toString().getBytes(StandardCharsets.ISO_8859_1);
    try {
      ctx.fireChannelRead(HeadParser.parseResponse(bytes, bytes.length));
    } catch (BadMessage e) {
      malformed(ctx, e.reason);
    }
  }

  private void data(ChannelHandlerContext ctx, Http2DataFrame d) {
    ByteBuf content = d.content();
    if (!headSeen) {
      d.release();
      malformed(ctx, "DATA before the response head");
      return;
    }
    if (content.isReadable() && !headRequest) {
      if (chunk) {
        ByteBuf c = ctx.alloc().directBuffer(content.readableBytes() + 12);
        c.writeCharSequence(
            Integer.toHexString(content.readableBytes()), StandardCharsets.US_ASCII);
        c.writeShort(CRLF).writeBytes(content).writeShort(CRLF);
        d.release();
        ctx.fireChannelRead(c);
      } else {
        ctx.fireChannelRead(content);
      }
    } else {
      d.release();
    }
    if (d.isEndStream()) {
      if (chunk) {
        ctx.fireChannelRead(Unpooled.wrappedBuffer(LAST_CHUNK));
      }
      end(ctx);
    }
  }

  private void trailers(ChannelHandlerContext ctx, Http2Headers t) {
    if (chunk) {
      StringBuilder b = new StringBuilder("0\r\n");
      if (trailers) {
        for (Map.Entry<CharSequence, CharSequence> e : t) {
          b.append(e.getKey()).append(": ").append(e.getValue()).append("\r\n");
        }
      }
      b.append("\r\n");
      chunk = false; // the last chunk is written
      ctx.fireChannelRead(
          Unpooled.wrappedBuffer(b.toString().getBytes(StandardCharsets.ISO_8859_1)));
    } else if (trailers && dechunk && !headRequest) {
      ctx.fireChannelRead(new ResponseTrailers(t));
    }
  }

  private void end(ChannelHandlerContext ctx) {
    if (ended) {
      return;
    }
    if (chunk) {
      ctx.fireChannelRead(Unpooled.wrappedBuffer(LAST_CHUNK));
      chunk = false;
    }
    ended = true;
    ctx.fireChannelRead(StrictRequestDecoder.END);
  }

  private void malformed(ChannelHandlerContext ctx, String why) {
    ended = true;
    ctx.fireChannelRead(new StrictRequestDecoder.Malformed(502, why));
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
    if (evt instanceof Http2ResetFrame r) {
      if (!headSeen && r.errorCode() == Http2Error.REFUSED_STREAM.code()) {
        ctx.fireExceptionCaught(new Refused("the server refused the stream (REFUSED_STREAM)"));
        return;
      }
    } else if (evt instanceof Http2GoAwayFrame g) {
      // The multiplexer passes a GOAWAY to the streams above its last stream id only.
      long last = g.lastStreamId();
      g.release();
      if (!headSeen) {
        ctx.fireExceptionCaught(
            new Refused("the server went away (GOAWAY, last stream " + last + ")"));
      }
      return;
    }
    ctx.fireUserEventTriggered(evt);
  }

  private static final int CRLF = ('\r' << 8) | '\n';
  private static final byte[] LAST_CHUNK = "0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1);
}
