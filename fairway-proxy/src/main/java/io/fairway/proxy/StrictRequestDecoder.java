package io.fairway.proxy;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;

/**
 * Splits what a client sends into requests: an {@link HttpHead}, then the body as {@link ByteBuf}
 * slices of the bytes received, then {@link #END} (right after the head when there is no body).
 *
 * <p>No header map, no strings, no re-encoding: the head is copied once into an array and parsed
 * in place ({@link HeadParser}), bodies pass as slices of the read buffer. A request that breaks
 * the rules becomes one {@link Malformed} message, and everything after it on the connection is
 * discarded: once framing is in doubt, no later byte can be trusted to start a request.
 *
 * <p>Limits as configured: a request line longer than {@code maxInitialLineLength} is refused
 * with 414, header lines adding up to more than {@code maxHeaderSize} with 431.
 */
final class StrictRequestDecoder extends ByteToMessageDecoder {
  /** The end of a request body. */
  static final Object END = new Object() {
    @Override
    public String toString() {
      return "END";
    }
  };

  /** A request the proxy refuses: the status to answer with and why. */
  record Malformed(int status, String reason) {}

  private enum State { HEAD, LENGTH, CHUNKED, BAD }

  private final int maxLine;
  private final int maxHeaders;
  private State state = State.HEAD;
  /** Head bytes already scanned (from the reader index) and where the current line starts. */
  private int scanned;
  private int lineStart;
  private int firstLineEnd;
  private long remaining;
  private ChunkedBody chunked;

  StrictRequestDecoder(ProxyOptions o) {
    this.maxLine = o.maxInitialLineLength();
    this.maxHeaders = o.maxHeaderSize();
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    try {
      switch (state) {
        case HEAD -> head(in, out);
        case LENGTH -> {
          remaining = lengthBody(in, out, remaining);
          if (remaining == 0) {
            state = State.HEAD;
          }
        }
        case CHUNKED -> {
          if (chunked.decode(in, out, true)) {
            out.add(END);
            chunked = null;
            state = State.HEAD;
          }
        }
        case BAD -> in.skipBytes(in.readableBytes());
      }
    } catch (BadMessage e) {
      state = State.BAD;
      in.skipBytes(in.readableBytes());
      out.add(new Malformed(e.status, e.getMessage()));
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

  private void head(ByteBuf in, List<Object> out) throws BadMessage {
    int r = in.readerIndex();
    int w = in.writerIndex();
    if (scanned == 0) {
      // RFC 9112 2.2: empty lines before a request line are ignored (some clients send a CRLF
      // after a POST body).
      while (w - r >= 2 && in.getByte(r) == '\r' && in.getByte(r + 1) == '\n') {
        r += 2;
      }
      in.readerIndex(r);
      if (r == w) {
        return;
      }
    }
    int end = -1;
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
        end = scanned;
        break;
      }
      if (lineStart == 0) {
        firstLineEnd = scanned;
      }
      lineStart = scanned;
      if (scanned - firstLineEnd > maxHeaders) {
        break;
      }
    }
    if (end < 0) {
      if (lineStart == 0 && scanned > maxLine + 1) {
        throw new BadMessage(414, "request line too long");
      }
      if (lineStart > 0 && scanned - firstLineEnd > maxHeaders) {
        throw new BadMessage(431, "request header fields too large");
      }
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
    if (h.chunked) {
      chunked = new ChunkedBody(400);
      state = State.CHUNKED;
    } else if (h.contentLength > 0) {
      remaining = h.contentLength;
      state = State.LENGTH;
    } else {
      out.add(END);
    }
  }
}
