package io.fairway.proxy.http;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Splits what a backend sends into responses, as {@link StrictRequestDecoder} does for requests: an
 * {@link HttpHead}, body slices, then {@link StrictRequestDecoder#END} (also after a bodiless one);
 * interim (1xx) heads, without END, come before the final one. A response the proxy cannot frame
 * becomes one {@link StrictRequestDecoder.Malformed} (status 502).
 *
 * <p>Whether a response has a body depends on the request (HEAD) as much as on the response, so the
 * exchange says what it sent through {@link #expect} before writing the request.
 */
final class ResponseDecoder extends ByteToMessageDecoder implements ResponseExpectation {
  private enum State {
    HEAD,
    LENGTH,
    CHUNKED,
    UNTIL_CLOSE,
    UPGRADED,
    BAD
  }

  private final int maxHead;
  private State state = State.HEAD;
  private int scanned;
  private long remaining;

  /** Set with state CHUNKED, for that body only. */
  private @Nullable ChunkedBody chunked;

  private boolean headRequest;
  private boolean dechunk;
  private boolean upgrade;

  ResponseDecoder(int maxHead) {
    this.maxHead = maxHead;
  }

  /**
   * The next response answers a HEAD request ({@code headRequest}), goes to a client that cannot
   * read chunked bodies ({@code dechunk}: chunked bodies are passed as their data alone), and may
   * be a 101 ({@code upgrade}: the request asked for a protocol switch). After a 101 nothing more
   * is decoded: the bytes stay in the cumulation, which goes on to the tunnel's relay when this
   * decoder is removed. A chunked body's trailers go on as they came ({@code trailers} is for
   * backends that frame them apart).
   */
  void expect(boolean headRequest, boolean dechunk, boolean upgrade) {
    expect(headRequest, dechunk, upgrade, false);
  }

  @Override
  public void expect(boolean headRequest, boolean dechunk, boolean upgrade, boolean trailers) {
    this.headRequest = headRequest;
    this.dechunk = dechunk;
    this.upgrade = upgrade;
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    try {
      switch (state) {
        case HEAD -> head(in, out);
        case LENGTH -> {
          remaining = StrictRequestDecoder.lengthBody(in, out, remaining);
          if (remaining == 0) {
            state = State.HEAD;
          }
        }
        case CHUNKED -> {
          if (Objects.requireNonNull(chunked, "set with state CHUNKED").decode(in, out, !dechunk)) {
            out.add(StrictRequestDecoder.END);
            chunked = null;
            state = State.HEAD;
          }
        }
        case UNTIL_CLOSE -> out.add(in.readRetainedSlice(in.readableBytes()));
        case UPGRADED -> {} // the new protocol's bytes, for the tunnel
        case BAD -> in.skipBytes(in.readableBytes());
      }
    } catch (BadMessage e) {
      state = State.BAD;
      in.skipBytes(in.readableBytes());
      out.add(new StrictRequestDecoder.Malformed(e.status, e.reason));
    }
  }

  @Override
  protected void decodeLast(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    if (in.isReadable()) {
      decode(ctx, in, out);
    }
    if (state == State.UNTIL_CLOSE) {
      // The backend's close is the end of this body.
      state = State.BAD;
      out.add(StrictRequestDecoder.END);
    }
  }

  private void head(ByteBuf in, List<Object> out) throws BadMessage {
    int r = in.readerIndex();
    int w = in.writerIndex();
    // The head ends at CRLF CRLF; the parser rejects any bare LF inside it.
    int from = Math.max(r, r + scanned - 3);
    int end = -1;
    for (int lf = in.indexOf(from, w, (byte) '\n');
        lf >= 0;
        lf = in.indexOf(lf + 1, w, (byte) '\n')) {
      if (lf - r >= 3
          && in.getByte(lf - 1) == '\r'
          && in.getByte(lf - 2) == '\n'
          && in.getByte(lf - 3) == '\r') {
        end = lf + 1 - r;
        break;
      }
      if (lf - r >= 1 && in.getByte(lf - 1) == '\n') {
        throw new BadMessage(502, "bare LF in the response head");
      }
    }
    if (end < 0) {
      scanned = w - r;
      if (scanned > maxHead) {
        throw new BadMessage(502, "response head too large");
      }
      return;
    }
    if (end > maxHead) {
      throw new BadMessage(502, "response head too large");
    }
    scanned = 0;
    byte[] bytes = new byte[end];
    in.readBytes(bytes);
    HttpHead h = HeadParser.parseResponse(bytes, end);
    out.add(h);
    int s = h.status;
    if (s < 200) {
      if (s == 101) {
        if (!upgrade) {
          throw new BadMessage(502, "unrequested protocol switch");
        }
        state = State.UPGRADED;
      }
      return; // interim: the final response follows
    }
    if (headRequest || s == 204 || s == 304) {
      out.add(StrictRequestDecoder.END);
    } else if (h.chunked) {
      chunked = new ChunkedBody(502);
      state = State.CHUNKED;
    } else if (h.transferEncoding || h.contentLength < 0) {
      state = State.UNTIL_CLOSE;
    } else if (h.contentLength > 0) {
      remaining = h.contentLength;
      state = State.LENGTH;
    } else {
      out.add(StrictRequestDecoder.END);
    }
  }
}
