package io.fairway.proxy.http;

import io.fairway.proxy.table.RequestKey;
import io.netty.handler.codec.http.cookie.Cookie;
import io.netty.handler.codec.http.cookie.ServerCookieDecoder;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;

/**
 * One parsed HTTP/1.x message head (request or response), kept as the bytes that arrived plus the
 * offsets of its parts.
 *
 * <p>The proxy rewrites a head by copying byte ranges, so nothing here is decoded into strings
 * unless someone asks: a request that goes through untouched costs one array copy, not a header
 * map. Only the headers that decide framing and connection handling are interpreted, by {@link
 * HeadParser}; everything else is opaque bytes that were checked to be well formed.
 */
public final class HttpHead implements RequestKey.Source {
  /** Per header: name start, name end, value start, value end (trimmed), line end (after CRLF). */
  static final int NAME = 0;

  static final int NAME_END = 1;
  static final int VALUE = 2;
  static final int VALUE_END = 3;
  static final int LINE_END = 4;
  static final int STRIDE = 5;

  final byte[] bytes;

  /** Length of the head including the blank line that ends it. */
  final int length;

  final boolean request;

  // Start line. Request: method [0, methodEnd), target [targetStart, targetEnd).
  int methodEnd;
  int targetStart;
  int targetEnd;

  /** Response status code. */
  int status;

  /** Version HTTP/1.0 (otherwise HTTP/1.1). */
  boolean http10;

  /** Where the first header line starts. */
  int startLineEnd;

  int count;
  int[] fields = new int[STRIDE * 8]; // grows; most heads have fewer

  /** Headers not to forward (hop-by-hop, or listed in Connection). */
  boolean[] drop = new boolean[8];

  /** Content-Length, or -1 when absent. */
  long contentLength = -1;

  /** Transfer-Encoding present (request: exactly "chunked"; response: any coding). */
  boolean transferEncoding;

  /** The body is chunked (the final transfer coding is chunked). */
  boolean chunked;

  boolean connectionClose;
  boolean connectionKeepAlive;

  /** A Host header is present (an HTTP/1.0 request may have none). */
  boolean hasHost;

  /** An Upgrade header is present (request: dropped unless {@link #upgrade}). */
  boolean upgradeHeader;

  /** The Connection header lists the "upgrade" token. */
  boolean connectionUpgrade;

  /**
   * An HTTP/1.1 request asking for a protocol switch (Upgrade, listed in Connection, RFC 9110 7.8):
   * its Upgrade headers are forwarded and the backend may answer 101 and a tunnel.
   */
  boolean upgrade;

  /**
   * Index of the last X-Forwarded-For header the request forwards, or -1 (none, or the client
   * listed it in Connection, which drops it: Fairway's own is then added alone).
   */
  int lastForwardedFor = -1;

  /** Index of the last RFC 7239 Forwarded header the request forwards, or -1. */
  int lastForwarded = -1;

  /**
   * Request: the Transfer-Encoding and Content-Length headers, or -1; forwarded in canonical form.
   */
  int transferEncodingHeader = -1;

  int contentLengthHeader = -1;

  /**
   * Request with an absolute-form target ({@code http://authority/path}): where its authority is,
   * else -1. RFC 9112 3.2.2: the authority is the request's host, whatever Host says.
   */
  int authorityStart = -1;

  int authorityEnd = -1;

  /** Whether any header is dropped when forwarding. */
  boolean dropsAny;

  /**
   * The only header to drop is "Connection: keep-alive", which is as true of the next hop's
   * connection as of this one when that one is kept alive too: the head can go on unchanged.
   */
  boolean onlyKeepAlive;

  HttpHead(byte[] bytes, int length, boolean request) {
    this.bytes = bytes;
    this.length = length;
    this.request = request;
  }

  int field(int header, int part) {
    return fields[header * STRIDE + part];
  }

  /** Whether this is a request with the given method (exact, methods are case-sensitive). */
  boolean isMethod(String m) {
    if (methodEnd != m.length()) {
      return false;
    }
    for (int i = 0; i < methodEnd; i++) {
      if (bytes[i] != m.charAt(i)) {
        return false;
      }
    }
    return true;
  }

  boolean isHead() {
    return isMethod("HEAD");
  }

  /** Methods whose request may be sent twice without harm (RFC 9110 9.2.2). */
  boolean idempotent() {
    return isMethod("GET")
        || isMethod("HEAD")
        || isMethod("PUT")
        || isMethod("DELETE")
        || isMethod("OPTIONS")
        || isMethod("TRACE");
  }

  /** Whether the client (request) or server (response) wants the connection kept open. */
  boolean keepAlive() {
    return http10 ? connectionKeepAlive && !connectionClose : !connectionClose;
  }

  String method() {
    return new String(bytes, 0, methodEnd, StandardCharsets.ISO_8859_1);
  }

  @Override
  public String target() {
    return new String(bytes, targetStart, targetEnd - targetStart, StandardCharsets.ISO_8859_1);
  }

  /** Whether header {@code i}'s name equals {@code lower} (given in lower case), ignoring case. */
  boolean nameIs(int i, String lower) {
    int s = field(i, NAME);
    int n = field(i, NAME_END) - s;
    return HeadParser.equalsLower(bytes, s, n, lower);
  }

  String value(int i) {
    int s = field(i, VALUE);
    return new String(bytes, s, field(i, VALUE_END) - s, StandardCharsets.ISO_8859_1);
  }

  /** Whether the target is in absolute form, whose authority overrides Host. */
  boolean absoluteForm() {
    return authorityStart >= 0;
  }

  /**
   * The first value of the named header, or {@code null}. For {@code host} the request's host as
   * forwarded: an absolute-form target's authority replaces any Host header.
   */
  @Override
  public @Nullable String header(String lowerName) {
    if (authorityStart >= 0 && lowerName.equals("host")) {
      return new String(
          bytes, authorityStart, authorityEnd - authorityStart, StandardCharsets.ISO_8859_1);
    }
    for (int i = 0; i < count; i++) {
      if (nameIs(i, lowerName)) {
        return value(i);
      }
    }
    return null;
  }

  @Override
  public @Nullable String cookie(String name) {
    for (int i = 0; i < count; i++) {
      if (nameIs(i, "cookie")) {
        for (Cookie c : ServerCookieDecoder.LAX.decodeAll(value(i))) {
          if (c.name().equals(name)) {
            return c.value();
          }
        }
      }
    }
    return null;
  }

  // For another protocol's mapping of a response (HTTP/2): what it may read of the head.

  /** The response's status code. */
  public int status() {
    return status;
  }

  /** How many header lines the head has. */
  public int headerCount() {
    return count;
  }

  /** Header {@code i}'s name in lower case. */
  public String lowerName(int i) {
    int s = field(i, NAME);
    return new String(bytes, s, field(i, NAME_END) - s, StandardCharsets.ISO_8859_1)
        .toLowerCase(java.util.Locale.ROOT);
  }

  /** Header {@code i}'s value, trimmed. */
  public String headerValue(int i) {
    return value(i);
  }

  /** Whether header {@code i} is for this hop only (hop-by-hop, or listed in Connection). */
  public boolean hopByHop(int i) {
    return drop[i];
  }

  @Override
  public String toString() {
    return new String(bytes, 0, startLineEnd - 2, StandardCharsets.ISO_8859_1);
  }
}
