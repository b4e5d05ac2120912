package io.fairway.proxy.http2;

import io.netty.handler.codec.http.HttpHeaderValidationUtil;
import io.netty.handler.codec.http2.Http2Headers;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;

/**
 * An HTTP/2 request head as the HTTP/1.1 request a backend gets (RFC 9113 §8.3, as HAProxy maps
 * it): {@code :method :path} make the request line, {@code :authority} becomes Host (replacing a
 * Host header), the cookie fields are rejoined with "; " into one line, and a body of unknown
 * length goes chunked. Connection-specific fields make the request malformed (§8.2.2): they are
 * refused, not dropped.
 */
final class H2Request {
  private final byte[] head;
  private final boolean chunked;

  /**
   * @param head the HTTP/1.1 head, ending with its blank line
   * @param chunked the body (if any) goes out chunked: the stream frames its DATA as chunks
   */
  H2Request(byte[] head, boolean chunked) {
    this.head = head;
    this.chunked = chunked;
  }

  /** The HTTP/1.1 head, ending with its blank line; the exchange owns it from here. */
  byte[] head() {
    return head;
  }

  /** The body (if any) goes out chunked: the stream frames its DATA as chunks. */
  boolean chunked() {
    return chunked;
  }

  /** Why a request cannot go on: a stream error (malformed, §8.1.1) or an HTTP status to answer. */
  static final class Invalid extends Exception {
    private static final long serialVersionUID = 1L;

    /** 0: a malformed request, reset with PROTOCOL_ERROR; otherwise the status to answer. */
    final int status;

    /** The message, never null (unlike {@link #getMessage} as the compiler sees it). */
    final String reason;

    Invalid(int status, String reason) {
      super(reason, null, false, false);
      this.status = status;
      this.reason = reason;
    }
  }

  /**
   * Maps a request's HEADERS.
   *
   * @param endStream the HEADERS frame ended the stream: there is no body
   */
  static H2Request of(Http2Headers h, boolean endStream) throws Invalid {
    StringBuilder out = requestLine(h);
    CharSequence authority = h.authority();
    if (authority != null) {
      out.append("host: ").append(authority).append("\r\n");
    }
    StringBuilder cookies = null;
    boolean contentLength = false;
    boolean host = authority != null;
    for (Map.Entry<CharSequence, CharSequence> e : h) {
      CharSequence name = e.getKey();
      if (name.length() > 0 && name.charAt(0) == ':') {
        continue;
      }
      String n = name.toString();
      CharSequence v = e.getValue();
      switch (n) {
        case "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade" ->
            throw new Invalid(0, "connection-specific header field " + n);
        case "te" -> {
          if (!"trailers".contentEquals(v)) {
            throw new Invalid(0, "te other than trailers");
          }
          continue; // for this hop only: the next hop's own te is the writer's to say
        }
        case "host" -> {
          if (host) {
            continue; // :authority wins (RFC 9113 8.3.1); a second Host is refused by the parser
          }
          host = true;
        }
        case "cookie" -> {
          cookies = cookies == null ? new StringBuilder(v) : cookies.append("; ").append(v);
          continue;
        }
        case "content-length" -> contentLength = true;
        default -> {}
      }
      out.append(n).append(": ").append(v).append("\r\n");
    }
    if (!host) {
      throw new Invalid(400, "request without :authority or Host");
    }
    if (cookies != null) {
      out.append("cookie: ").append(cookies).append("\r\n");
    }
    boolean chunked = !endStream && !contentLength;
    if (chunked) {
      out.append("transfer-encoding: chunked\r\n");
    }
    out.append("\r\n");
    return new H2Request(bytes(out), chunked);
  }

  /**
   * The request line {@code :method :path} make, after checking they (and {@code :scheme}) are
   * there.
   */
  private static StringBuilder requestLine(Http2Headers h) throws Invalid {
    CharSequence method = h.method();
    CharSequence path = h.path();
    if (method == null || h.scheme() == null || path == null || path.length() == 0) {
      throw new Invalid(0, "request without :method, :scheme or :path");
    }
    if ("CONNECT".contentEquals(method)) {
      throw new Invalid(501, "CONNECT over HTTP/2 is not supported");
    }
    StringBuilder out = new StringBuilder(256);
    return out.append(method).append(' ').append(path).append(" HTTP/1.1\r\n");
  }

  /** Header values are bytes: one char each (Netty's AsciiString), anything else is refused. */
  private static byte[] bytes(CharSequence s) throws Invalid {
    ByteArrayOutputStream b = new ByteArrayOutputStream(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c > 0xff) {
        throw new Invalid(400, "header field with a character above 0xff");
      }
      b.write(c);
    }
    return b.toByteArray();
  }

  /**
   * The last chunk of a chunked request carrying the client's trailers (RFC 9112 7.1.2), checked as
   * RFC 9113 8.1 and 8.2 say a trailer section must be: no pseudo-header, no connection-specific
   * field, no CR, LF or NUL in a value; fields that frame or route a message are left out. Both
   * kinds of backend take it from here: an HTTP/1.1 one reads the trailer section as sent, an
   * HTTP/2 one gets it back as a HEADERS frame.
   */
  static byte[] lastChunk(Http2Headers trailers) throws Invalid {
    StringBuilder out = new StringBuilder(64).append("0\r\n");
    for (Map.Entry<CharSequence, CharSequence> e : trailers) {
      CharSequence name = e.getKey();
      if (name.length() > 0 && name.charAt(0) == ':') {
        throw new Invalid(0, "pseudo-header field in trailers");
      }
      String n = name.toString();
      if (n.isEmpty()
          || HttpHeaderValidationUtil.validateToken(n) != -1
          || HttpHeaderValidationUtil.isConnectionHeader(n, false)) {
        throw new Invalid(0, "header field " + n + " not allowed in trailers");
      }
      if (DROPPED_FROM_TRAILERS.contains(n)) {
        continue;
      }
      CharSequence v = e.getValue();
      for (int i = 0; i < v.length(); i++) {
        char c = v.charAt(i);
        if (c == '\r' || c == '\n' || c == 0) {
          throw new Invalid(0, "CR, LF or NUL in trailer field " + n);
        }
      }
      out.append(n).append(": ").append(v).append("\r\n");
    }
    out.append("\r\n");
    // The bound the HTTP/1.1 side holds a trailer section to (ChunkedBody): the size line aside.
    if (out.length() - 3 > MAX_TRAILER_SECTION) {
      throw new Invalid(0, "trailer section too large");
    }
    return bytes(out);
  }

  /**
   * Fields that frame or route the message (RFC 9110 6.5.1): not passed on, so that no next hop
   * that merges trailers into the header section can be steered by them.
   */
  private static final Set<String> DROPPED_FROM_TRAILERS =
      Set.of("host", "content-length", "trailer");

  static final int MAX_TRAILER_SECTION = 16384;

  /** The chunk-size line of a chunk of {@code n} bytes. */
  static byte[] chunkSize(int n) {
    return (Integer.toHexString(n) + "\r\n").getBytes(StandardCharsets.ISO_8859_1);
  }

  static final byte[] CRLF = {'\r', '\n'};
  static final byte[] LAST_CHUNK = "0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1);
}
