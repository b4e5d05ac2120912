package io.fairway.proxy.http;

import io.fairway.proxy.ProxyOptions;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Splits what a client sends into requests: an {@link HttpHead}, then the body as {@link ByteBuf}
 * slices of the bytes received, then {@link #END} (right after the head when there is no body).
 *
 * <p>No header map, no strings, no re-encoding: the head is copied once into an array and parsed in
 * place ({@link HeadParser}), bodies pass as slices of the read buffer. A request that breaks the
 * rules becomes one {@link Malformed} message, and everything after it on the connection is
 * discarded: once framing is in doubt, no later byte can be trusted to start a request.
 *
 * <p>After a request that asks for a protocol switch ({@link HttpHead#upgrade}) the decoder holds
 * what follows undecoded: it may be the new protocol's first bytes (sent before the 101, as
 * WebSocket clients may) or the next HTTP request. The exchange decides: {@link #resume()} when the
 * backend declined, or the decoder is removed and passes the bytes on to the tunnel.
 *
 * <p>When the client half-closes in the middle of a request (head or body), {@link #TRUNCATED}
 * follows what was decoded of it: it will never be complete.
 *
 * <p>Limits as configured: a request line longer than {@code maxInitialLineLength} is refused with
 * 414, header lines adding up to more than {@code maxHeaderSize} with 431.
 */
public final class StrictRequestDecoder extends ByteToMessageDecoder {
  /** The end of a request body. */
  static final Object END =
      new Object() {
        @Override
        public String toString() {
          return "END";
        }
      };

  /** The client's input ended in the middle of a request. */
  static final Object TRUNCATED =
      new Object() {
        @Override
        public String toString() {
          return "TRUNCATED";
        }
      };

  /** A request the proxy refuses: the status to answer with and why. */
  record Malformed(int status, String reason) {}

  private enum State {
    HEAD,
    LENGTH,
    CHUNKED,
    HOLD,
    BAD
  }

  private final int maxLine;
  private final int maxHeaders;
  private State state = State.HEAD;

  /** Head bytes already scanned (from the reader index) and where the current line starts. */
  private int scanned;

  private int lineStart;
  private int firstLineEnd;
  private long remaining;

  /** Set with state CHUNKED, for that body only. */
  private @Nullable ChunkedBody chunked;

  /** The request whose body is being decoded asked for a protocol switch. */
  private boolean holdAfterBody;

  /** What was held when the input ended (the cumulation is released then). */
  private @Nullable ByteBuf heldAtEof;

  private boolean inputEnded;

  /** Set in {@link #handlerAdded}: the frontend can resume this decoder only once it is added. */
  private @Nullable ChannelHandlerContext ctx;

  public StrictRequestDecoder(ProxyOptions o) {
    this.maxLine = o.maxInitialLineLength();
    this.maxHeaders = o.maxHeaderSize();
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    this.ctx = ctx;
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    try {
      switch (state) {
        case HEAD -> head(in, out);
        case LENGTH -> {
          remaining = lengthBody(in, out, remaining);
          if (remaining == 0) {
            state = holdAfterBody ? State.HOLD : State.HEAD;
          }
        }
        case CHUNKED -> {
          if (Objects.requireNonNull(chunked, "set with state CHUNKED").decode(in, out, true)) {
            out.add(END);
            chunked = null;
            state = holdAfterBody ? State.HOLD : State.HEAD;
          }
        }
        case HOLD -> {} // left in the cumulation
        case BAD -> in.skipBytes(in.readableBytes());
      }
    } catch (BadMessage e) {
      state = State.BAD;
      in.skipBytes(in.readableBytes());
      out.add(new Malformed(e.status, e.reason));
    }
  }

  @Override
  protected void decodeLast(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    inputEnded = true;
    if (in.isReadable()) {
      decode(ctx, in, out);
    }
    if (state == State.HOLD) {
      if (in.isReadable()) {
        heldAtEof = in.readRetainedSlice(in.readableBytes());
      }
    } else if (state == State.LENGTH
        || state == State.CHUNKED
        || (state == State.HEAD && in.isReadable())) {
      out.add(TRUNCATED);
    }
  }

  /** Whether the bytes after a protocol-switch request are being held. */
  boolean holding() {
    return state == State.HOLD;
  }

  /**
   * The backend declined the protocol switch: what was held is decoded as HTTP after all. Its
   * messages reach the next handler before this returns. Call on the event loop.
   */
  void resume() {
    if (state != State.HOLD) {
      return;
    }
    ChannelHandlerContext c = Objects.requireNonNull(ctx, "added before it can hold");
    state = State.HEAD;
    ByteBuf held = heldAtEof;
    heldAtEof = null;
    try {
      channelRead(c, held != null ? held : Unpooled.EMPTY_BUFFER);
    } catch (Exception e) {
      c.fireExceptionCaught(e);
      return;
    }
    if (inputEnded && state != State.BAD) {
      ByteBuf rest = internalBuffer();
      if (state != State.HEAD || rest.isReadable()) {
        c.fireChannelRead(TRUNCATED);
      }
    }
  }

  /**
   * The bytes held when the client's input ended, for the tunnel (the caller owns them), or {@code
   * null}. Bytes held before that are passed on when this decoder is removed.
   */
  @Nullable ByteBuf takeHeldAtEof() {
    ByteBuf b = heldAtEof;
    heldAtEof = null;
    return b;
  }

  @Override
  protected void handlerRemoved0(ChannelHandlerContext ctx) {
    if (heldAtEof != null) {
      heldAtEof.release();
      heldAtEof = null;
    }
  }

  /**
   * Passes on what is readable of a Content-Length body, up to {@code remaining} bytes, as one
   * slice (and the end marker once the body is complete); returns the bytes still to come.
   */
  static long lengthBody(ByteBuf in, List<Object> out, long remaining) {
    int n = (int) Math.min(in.readableBytes(), remaining);
    out.add(in.readRetainedSlice(n));
    remaining -= n;
    if (remaining == 0) {
      out.add(END);
    }
    return remaining;
  }

  /** Whether the request line [r, lf) has the three parts of HTTP/1.x: method, target, version. */
  private static boolean hasVersion(ByteBuf in, int r, int lf) {
    int spaces = 0;
    for (int i = r; i < lf && spaces < 2; i++) {
      if (in.getByte(i) == ' ') {
        spaces++;
      }
    }
    return spaces >= 2;
  }

  private void head(ByteBuf in, List<Object> out) throws BadMessage {
    if (scanned == 0 && !skipEmptyLines(in)) {
      return;
    }
    int end = headEnd(in);
    if (end < 0) {
      return;
    }
    if (end - firstLineEnd > maxHeaders + 2) {
      throw new BadMessage(431, "request header fields too large");
    }
    scanned = 0;
    lineStart = 0;
    byte[] bytes = new byte[end];
    in.readBytes(bytes);
    HttpHead h = HeadParser.parseRequest(bytes, end);
    out.add(h);
    holdAfterBody = h.upgrade;
    if (h.chunked) {
      chunked = new ChunkedBody(400);
      state = State.CHUNKED;
    } else if (h.contentLength > 0) {
      remaining = h.contentLength;
      state = State.LENGTH;
    } else {
      out.add(END);
      if (h.upgrade) {
        state = State.HOLD;
      }
    }
  }

  /**
   * RFC 9112 2.2: empty lines before a request line are ignored (some clients send a CRLF after a
   * POST body). Returns whether anything else is readable.
   */
  private static boolean skipEmptyLines(ByteBuf in) {
    int r = in.readerIndex();
    int w = in.writerIndex();
    while (w - r >= 2 && in.getByte(r) == '\r' && in.getByte(r + 1) == '\n') {
      r += 2;
    }
    in.readerIndex(r);
    return r != w;
  }

  /**
   * Scans on for the blank line ending the head, checking the size limits as lines go by; returns
   * the head's length, or -1 when it has not all arrived yet.
   */
  private int headEnd(ByteBuf in) throws BadMessage {
    int r = in.readerIndex();
    int w = in.writerIndex();
    while (true) {
      int lf = in.indexOf(r + scanned, w, (byte) '\n');
      if (lf < 0) {
        scanned = w - r;
        break;
      }
      int len = lf - (r + lineStart);
      if (lineStart == 0 && len > maxLine + 1) {
        throw new BadMessage(414, "request line too long");
      }
      scanned = lf + 1 - r;
      if (len == 0 || (len == 1 && in.getByte(lf - 1) == '\r')) {
        return scanned;
      }
      if (lineStart == 0) {
        firstLineEnd = scanned;
        if (!hasVersion(in, r, lf)) {
          // HTTP/0.9 ("GET /"): no headers follow, so waiting for the blank line would only
          // end in a 408. Refused now, as HAProxy does.
          throw new BadMessage(
              400, "request line without an HTTP version (HTTP/0.9 is not supported)");
        }
      }
      lineStart = scanned;
      if (scanned - firstLineEnd > maxHeaders) {
        break;
      }
    }
    if (lineStart == 0 && scanned > maxLine + 1) {
      throw new BadMessage(414, "request line too long");
    }
    if (lineStart > 0 && scanned - firstLineEnd > maxHeaders) {
      throw new BadMessage(431, "request header fields too large");
    }
    return -1;
  }
}
