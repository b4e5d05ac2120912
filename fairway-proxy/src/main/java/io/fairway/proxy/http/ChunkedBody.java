package io.fairway.proxy.http;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * Follows a chunked body (RFC 9112 7.1) through the bytes as they arrive, checking its framing.
 *
 * <p>The proxy does not re-chunk: the body goes on as the very bytes that came in (one slice per
 * read, no copy), or, for an HTTP/1.0 client that cannot read chunked, as the chunk data alone.
 * What it must do is know exactly where the body ends and refuse a chunk size the next hop could
 * read differently (a size that is not pure hex, an overflow, a bare LF, junk in an extension):
 * those are how a second request is hidden inside a body.
 */
final class ChunkedBody {
  private static final int MAX_LINE = 4096;
  private static final int MAX_TRAILERS = 16384;

  /** What a step returns when it needs more bytes. */
  private static final int MORE = -1;

  private enum State {
    SIZE,
    DATA,
    DATA_END,
    TRAILER,
    DONE
  }

  private final int badStatus;
  private State state = State.SIZE;
  private long remaining;
  private int trailerBytes;

  /** The trailer fields, name and value in turn, when they are to be kept (null otherwise). */
  private @Nullable List<String> trailers;

  ChunkedBody(int badStatus) {
    this.badStatus = badStatus;
  }

  /**
   * Keeps the trailer fields as they are checked, for a next hop that frames them itself (an HTTP/2
   * backend); the bytes passed on are the same either way.
   */
  ChunkedBody keepTrailers() {
    trailers = new ArrayList<>(4);
    return this;
  }

  /**
   * The trailer fields read so far, lowercase name and trimmed value in turn (none unless kept).
   */
  List<String> trailers() {
    return trailers == null ? List.of() : trailers;
  }

  /**
   * Consumes what it can of {@code in}, adding body slices to {@code out}: the bytes as they are
   * when {@code verbatim}, only the chunk data otherwise.
   *
   * @return true once the body (with its trailers) is complete
   */
  boolean decode(ByteBuf in, List<Object> out, boolean verbatim) throws BadMessage {
    int p = in.readerIndex();
    int w = in.writerIndex();
    int from = p;
    while (state != State.DONE) {
      int next =
          switch (state) {
            case SIZE -> sizeLine(in, p, w);
            case DATA -> data(in, p, w, out, verbatim);
            case DATA_END -> dataEnd(in, p, w);
            case TRAILER -> trailer(in, p, w);
            default -> throw new IllegalStateException();
          };
      if (next == MORE) {
        break;
      }
      p = next;
    }
    if (verbatim) {
      if (p > from) {
        in.readerIndex(from);
        out.add(in.readRetainedSlice(p - from));
      }
    } else {
      in.readerIndex(p);
    }
    return state == State.DONE;
  }

  /** The chunk-size line at {@code p}; returns where what follows it starts, or {@link #MORE}. */
  private int sizeLine(ByteBuf in, int p, int w) throws BadMessage {
    int lf = in.indexOf(p, Math.min(w, p + MAX_LINE), (byte) '\n');
    if (lf < 0) {
      if (w - p >= MAX_LINE) {
        throw new BadMessage(badStatus, "chunk size line too long");
      }
      return MORE;
    }
    long size = size(in, p, lf);
    if (size == 0) {
      state = State.TRAILER;
    } else {
      remaining = size;
      state = State.DATA;
    }
    return lf + 1;
  }

  /**
   * Chunk data from {@code p}, as far as it arrived; passed on as a slice unless {@code verbatim}
   * (then the caller passes on the bytes as they are).
   */
  private int data(ByteBuf in, int p, int w, List<Object> out, boolean verbatim) {
    int n = (int) Math.min(w - p, remaining);
    if (n == 0) {
      return MORE;
    }
    if (!verbatim) {
      in.readerIndex(p);
      out.add(in.readRetainedSlice(n));
    }
    remaining -= n;
    if (remaining == 0) {
      state = State.DATA_END;
    }
    return p + n;
  }

  /** The CRLF after a chunk's data. */
  private int dataEnd(ByteBuf in, int p, int w) throws BadMessage {
    if (w - p < 2) {
      if (w > p && in.getByte(p) != '\r') {
        throw new BadMessage(badStatus, "chunk data not followed by CRLF");
      }
      return MORE;
    }
    if (in.getByte(p) != '\r' || in.getByte(p + 1) != '\n') {
      throw new BadMessage(badStatus, "chunk data not followed by CRLF");
    }
    state = State.SIZE;
    return p + 2;
  }

  /** A trailer line, or the blank line ending the body. */
  private int trailer(ByteBuf in, int p, int w) throws BadMessage {
    int lf = in.indexOf(p, w, (byte) '\n');
    if (lf < 0) {
      if (trailerBytes + (w - p) > MAX_TRAILERS) {
        throw new BadMessage(badStatus, "trailer section too large");
      }
      return MORE;
    }
    trailerLine(in, p, lf);
    trailerBytes += lf + 1 - p;
    if (trailerBytes > MAX_TRAILERS) {
      throw new BadMessage(badStatus, "trailer section too large");
    }
    if (lf - p == 1) {
      state = State.DONE;
    }
    return lf + 1;
  }

  /** chunk-size [ chunk-ext ] CRLF, with {@code lf} the index of the LF. */
  private long size(ByteBuf in, int p, int lf) throws BadMessage {
    if (lf == p || in.getByte(lf - 1) != '\r') {
      throw new BadMessage(badStatus, "chunk size line without CRLF");
    }
    int end = lf - 1;
    long size = 0;
    int i = p;
    for (; i < end; i++) {
      int d = Character.digit(in.getByte(i), 16);
      if (d < 0) {
        break;
      }
      if (i - p >= 15) {
        throw new BadMessage(badStatus, "chunk size too large");
      }
      size = size << 4 | d;
    }
    if (i == p) {
      throw new BadMessage(badStatus, "invalid chunk size");
    }
    // chunk-ext: BWS ";" ..., any visible characters but no controls.
    while (i < end && (in.getByte(i) == ' ' || in.getByte(i) == '\t')) {
      i++;
    }
    if (i < end && in.getByte(i) != ';') {
      throw new BadMessage(badStatus, "invalid chunk size");
    }
    for (; i < end; i++) {
      byte c = in.getByte(i);
      if ((c >= 0 && c < 0x20 && c != '\t') || c == 0x7f) {
        throw new BadMessage(badStatus, "control character in a chunk extension");
      }
    }
    return size;
  }

  private void trailerLine(ByteBuf in, int p, int lf) throws BadMessage {
    if (lf == p || in.getByte(lf - 1) != '\r') {
      throw new BadMessage(badStatus, "trailer line without CRLF");
    }
    int end = lf - 1;
    if (end == p) {
      return; // the blank line ending the body
    }
    int i = p;
    while (i < end && HeadParser.isTchar(in.getByte(i))) {
      i++;
    }
    if (i == p || i == end || in.getByte(i) != ':') {
      throw new BadMessage(badStatus, "malformed trailer line");
    }
    int colon = i;
    for (i++; i < end; i++) {
      byte c = in.getByte(i);
      if ((c >= 0 && c < 0x20 && c != '\t') || c == 0x7f) {
        throw new BadMessage(badStatus, "control character in a trailer");
      }
    }
    if (trailers != null) {
      trailers.add(in.toString(p, colon - p, StandardCharsets.ISO_8859_1).toLowerCase(Locale.ROOT));
      trailers.add(in.toString(colon + 1, end - colon - 1, StandardCharsets.ISO_8859_1).strip());
    }
  }
}
