package io.fairway.proxy.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;

/**
 * Writes the heads the proxy forwards, by copying byte ranges of the heads it received.
 *
 * <p>Upstream, a request loses its hop-by-hop headers (and those its Connection header lists; a
 * protocol-switch request keeps its Upgrade and says "Connection: upgrade" again), gains the
 * client's address at the end of X-Forwarded-For and Fairway's X-Forwarded-Proto (the client's is
 * removed), and always says HTTP/1.1: the backend connection is ours and kept alive. Downstream, a
 * response loses its hop-by-hop headers and says what the client connection will do.
 */
final class HeadWriter {
  private static final byte[] HTTP11 = " HTTP/1.1\r\n".getBytes(StandardCharsets.ISO_8859_1);
  private static final byte[] XFF = "X-Forwarded-For: ".getBytes(StandardCharsets.ISO_8859_1);
  private static final byte[] XFP =
      "X-Forwarded-Proto: http\r\n".getBytes(StandardCharsets.ISO_8859_1);
  private static final byte[] XFP_HTTPS =
      "X-Forwarded-Proto: https\r\n".getBytes(StandardCharsets.ISO_8859_1);
  private static final byte[] FORWARDED = "Forwarded: ".getBytes(StandardCharsets.ISO_8859_1);
  private static final byte[] CONTENT_LENGTH =
      "Content-Length: ".getBytes(StandardCharsets.ISO_8859_1);
  private static final byte[] COMMA = ", ".getBytes(StandardCharsets.ISO_8859_1);
  static final byte[] CRLF = {'\r', '\n'};
  static final byte[] LAST_CHUNK = "0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1);
  private static final byte[] CLOSE = "Connection: close\r\n".getBytes(StandardCharsets.ISO_8859_1);
  private static final byte[] HOST = "Host: ".getBytes(StandardCharsets.ISO_8859_1);
  private static final byte[] UPGRADE =
      "Connection: upgrade\r\n".getBytes(StandardCharsets.ISO_8859_1);
  private static final byte[] KEEP_ALIVE =
      "Connection: keep-alive\r\n".getBytes(StandardCharsets.ISO_8859_1);
  private static final byte[] CHUNKED =
      "Transfer-Encoding: chunked\r\n".getBytes(StandardCharsets.ISO_8859_1);

  /** What the response head says about the client connection. */
  enum Connection {
    UNCHANGED,
    CLOSE,
    KEEP_ALIVE
  }

  private HeadWriter() {}

  /** The request as the backend gets it; {@code clientIp} is the client's address in ASCII. */
  static ByteBuf request(ByteBufAllocator alloc, HttpHead h, byte[] clientIp) {
    return request(alloc, h, clientIp, null, false);
  }

  static ByteBuf request(
      ByteBufAllocator alloc, HttpHead h, byte[] clientIp, byte @Nullable [] host) {
    return request(alloc, h, clientIp, host, false);
  }

  /**
   * The request as the backend gets it, with {@code Host: host} added when it has no Host (an
   * HTTP/1.0 request; it goes out as HTTP/1.1, which requires one) and {@code host} is given.
   *
   * <p>Order matters: everything the client controls (its hop-by-hop headers, what its Connection
   * header names, its X-Forwarded-Proto) is removed first, and Fairway's own headers are written
   * after that, so no client header can remove or replace them. The client's X-Forwarded-For and
   * Forwarded chains are kept and Fairway's hop is appended to the last one. Framing headers go out
   * in canonical form ({@code Transfer-Encoding: chunked}, {@code Content-Length: N}), so the
   * backend reads exactly the framing Fairway decided on.
   *
   * @param forwarded also append an RFC 7239 {@code Forwarded: for=...;proto=http}
   */
  static ByteBuf request(
      ByteBufAllocator alloc,
      HttpHead h,
      byte[] clientIp,
      byte @Nullable [] host,
      boolean forwarded) {
    return request(alloc, h, clientIp, host, forwarded, false);
  }

  /**
   * As above; {@code https}: the client came in over TLS, so both forwarding headers say {@code
   * https}.
   */
  static ByteBuf request(
      ByteBufAllocator alloc,
      HttpHead h,
      byte[] clientIp,
      byte @Nullable [] host,
      boolean forwarded,
      boolean https) {
    byte[] b = h.bytes;
    byte[] fwd = forwarded ? forwardedFor(clientIp, https) : null;
    byte[] authority = null;
    if (h.absoluteForm()) {
      authority = java.util.Arrays.copyOfRange(b, h.authorityStart, h.authorityEnd);
    } else if (!h.hasHost && host != null) {
      authority = host;
    }
    ByteBuf out =
        alloc.directBuffer(
            h.length
                + XFF.length
                + XFP_HTTPS.length
                + clientIp.length
                + 8
                + (h.upgrade ? UPGRADE.length : 0)
                + (authority != null ? HOST.length + authority.length + 2 : 0)
                + (fwd != null ? FORWARDED.length + fwd.length + 4 : 0)
                + 40);
    out.writeBytes(b, 0, h.targetEnd);
    out.writeBytes(HTTP11);
    int run = copyFields(out, h, clientIp, fwd);
    out.writeBytes(b, run, h.length - 2 - run);
    if (h.lastForwardedFor < 0) {
      out.writeBytes(XFF).writeBytes(clientIp).writeBytes(CRLF);
    }
    if (fwd != null && h.lastForwarded < 0) {
      out.writeBytes(FORWARDED).writeBytes(fwd).writeBytes(CRLF);
    }
    out.writeBytes(https ? XFP_HTTPS : XFP);
    if (h.upgrade) {
      out.writeBytes(UPGRADE);
    }
    if (authority != null) {
      out.writeBytes(HOST).writeBytes(authority).writeBytes(CRLF);
    }
    return out.writeBytes(CRLF);
  }

  /**
   * Copies the request's header lines to {@code out} as runs of the bytes received, leaving out the
   * dropped ones, appending Fairway's hop to the last forwarding header, and rewriting the framing
   * headers in canonical form. Returns where the last run, still to be copied, starts.
   */
  private static int copyFields(ByteBuf out, HttpHead h, byte[] clientIp, byte @Nullable [] fwd) {
    byte[] b = h.bytes;
    int run = h.startLineEnd; // start of a run of headers copied as they are
    for (int i = 0; i < h.count; i++) {
      int lineStart = h.field(i, HttpHead.NAME);
      if (h.drop[i]) {
        out.writeBytes(b, run, lineStart - run);
        run = h.field(i, HttpHead.LINE_END);
      } else if (i == h.lastForwardedFor || (fwd != null && i == h.lastForwarded)) {
        int ve = h.field(i, HttpHead.VALUE_END);
        out.writeBytes(b, run, ve - run);
        if (ve > h.field(i, HttpHead.VALUE)) {
          out.writeBytes(COMMA);
        }
        out.writeBytes(i == h.lastForwardedFor ? clientIp : fwd).writeBytes(CRLF);
        run = h.field(i, HttpHead.LINE_END);
      } else if (i == h.transferEncodingHeader || i == h.contentLengthHeader) {
        out.writeBytes(b, run, lineStart - run);
        if (i == h.transferEncodingHeader) {
          out.writeBytes(CHUNKED);
        } else {
          out.writeBytes(CONTENT_LENGTH)
              .writeBytes(Long.toString(h.contentLength).getBytes(StandardCharsets.ISO_8859_1))
              .writeBytes(CRLF);
        }
        run = h.field(i, HttpHead.LINE_END);
      }
    }
    return run;
  }

  /** An RFC 7239 forwarded-element for the client: an IPv6 address is quoted and bracketed. */
  private static byte[] forwardedFor(byte[] clientIp, boolean https) {
    String ip = new String(clientIp, StandardCharsets.ISO_8859_1);
    String node = ip.indexOf(':') >= 0 ? "\"[" + ip + "]\"" : ip;
    return ("for=" + node + (https ? ";proto=https" : ";proto=http"))
        .getBytes(StandardCharsets.ISO_8859_1);
  }

  /**
   * The response head as the client gets it.
   *
   * @param dropTransferEncoding the body goes out de-chunked (to an HTTP/1.0 client)
   * @param addChunked the body goes out chunked by the proxy (it was close-delimited)
   */
  static ByteBuf response(
      ByteBufAllocator alloc,
      HttpHead h,
      boolean dropTransferEncoding,
      boolean addChunked,
      Connection c) {
    byte[] b = h.bytes;
    boolean same =
        !dropTransferEncoding
            && !addChunked
            && (c == Connection.UNCHANGED
                ? !h.dropsAny || h.onlyKeepAlive
                : c == Connection.KEEP_ALIVE && h.onlyKeepAlive);
    if (same) {
      return alloc.directBuffer(h.length).writeBytes(b, 0, h.length);
    }
    ByteBuf out = alloc.directBuffer(h.length + CHUNKED.length + KEEP_ALIVE.length);
    int run = 0;
    for (int i = 0; i < h.count; i++) {
      if (h.drop[i] || (dropTransferEncoding && h.nameIs(i, "transfer-encoding"))) {
        out.writeBytes(b, run, h.field(i, HttpHead.NAME) - run);
        run = h.field(i, HttpHead.LINE_END);
      }
    }
    out.writeBytes(b, run, h.length - 2 - run);
    if (addChunked) {
      out.writeBytes(CHUNKED);
    }
    if (c == Connection.CLOSE) {
      out.writeBytes(CLOSE);
    } else if (c == Connection.KEEP_ALIVE) {
      out.writeBytes(KEEP_ALIVE);
    }
    return out.writeBytes(CRLF);
  }

  /** The framing around one chunk of a body the proxy chunks itself. */
  static ByteBuf chunkHeader(ByteBufAllocator alloc, int size) {
    return alloc
        .directBuffer(12)
        .writeBytes(Integer.toHexString(size).getBytes(StandardCharsets.ISO_8859_1))
        .writeBytes(CRLF);
  }
}
