package io.fairway.proxy.http;

/**
 * Parses and checks an HTTP/1.1 message head (RFC 9112) into an {@link HttpHead}.
 *
 * <p>A proxy sits between two parsers, and every place where two HTTP implementations may read the
 * same bytes differently is a way to smuggle a request past one of them. So this parser refuses,
 * rather than repairs, anything ambiguous: bare LF or CR, obs-fold (a line starting with
 * whitespace), whitespace before the colon, control characters, a second Content-Length, a
 * Transfer-Encoding a request may not have, both Content-Length and Transfer-Encoding on a request,
 * Transfer-Encoding on an HTTP/1.0 request, several Host headers. That is what HAProxy and nginx
 * do.
 *
 * <p>Input: the whole head, ending with its blank line (CRLF CRLF), as found by the decoders.
 */
final class HeadParser {
  private static final boolean[] TCHAR = new boolean[256];

  /** Bytes allowed in a field value: VCHAR, obs-text, SP and HTAB. */
  private static final boolean[] VALUE = new boolean[256];

  static {
    for (int c = '0'; c <= '9'; c++) {
      TCHAR[c] = true;
    }
    for (int c = 'a'; c <= 'z'; c++) {
      TCHAR[c] = true;
      TCHAR[c - 32] = true;
    }
    for (char c : "!#$%&'*+-.^_`|~".toCharArray()) {
      TCHAR[c] = true;
    }
    for (int c = 0x20; c < 256; c++) {
      VALUE[c] = c != 0x7f;
    }
    VALUE['\t'] = true;
  }

  private HeadParser() {}

  static boolean isTchar(byte b) {
    return TCHAR[b & 0xff];
  }

  static HttpHead parseRequest(byte[] b, int len) throws BadMessage {
    HttpHead h = new HttpHead(b, len, true);
    int p = 0;
    while (p < len && isTchar(b[p])) {
      p++;
    }
    if (p == 0 || p >= len || b[p] != ' ') {
      throw bad("malformed request line");
    }
    h.methodEnd = p;
    if (p == 7
        && b[0] == 'C'
        && new String(b, 0, 7, java.nio.charset.StandardCharsets.ISO_8859_1).equals("CONNECT")) {
      // A reverse proxy is not a forward proxy: tunnelling to an address the client names is
      // not what the operator configured.
      throw new BadMessage(501, "CONNECT is not supported");
    }
    int t = ++p;
    while (p < len && (b[p] & 0xff) > 0x20 && b[p] != 0x7f) {
      p++;
    }
    if (p == t || p >= len || b[p] != ' ') {
      throw bad("malformed request line");
    }
    h.targetStart = t;
    h.targetEnd = p;
    absoluteForm(h, b);
    p = version(h, b, p + 1, len);
    if (p + 1 >= len || b[p] != '\r' || b[p + 1] != '\n') {
      throw bad("malformed request line");
    }
    h.startLineEnd = p + 2;
    headers(h, b, p + 2, len, 400);
    return h;
  }

  /**
   * Notes the authority of an absolute-form target (RFC 9112 3.2.2). Only http and https are
   * schemes a reverse proxy can mean; an empty authority leaves no host to go to.
   */
  private static void absoluteForm(HttpHead h, byte[] b) throws BadMessage {
    int t = h.targetStart;
    int end = h.targetEnd;
    if (b[t] == '/' || b[t] == '*') {
      return;
    }
    int colon = t;
    while (colon < end && b[colon] != ':') {
      colon++;
    }
    if (colon + 2 >= end || b[colon + 1] != '/' || b[colon + 2] != '/') {
      return; // not absolute-form; an origin server may still make sense of it, so leave it be
    }
    int n = colon - t;
    if (!(equalsLower(b, t, n, "http") || equalsLower(b, t, n, "https"))) {
      throw bad("unsupported scheme in the request target");
    }
    int a = colon + 3;
    int e = a;
    while (e < end && b[e] != '/' && b[e] != '?' && b[e] != '#') {
      e++;
    }
    for (int i = a; i < e; i++) {
      if (b[i] == '@') {
        throw bad("userinfo in the request target");
      }
    }
    if (e == a) {
      throw bad("empty authority in the request target");
    }
    h.authorityStart = a;
    h.authorityEnd = e;
  }

  static HttpHead parseResponse(byte[] b, int len) throws BadMessage {
    HttpHead h = new HttpHead(b, len, false);
    int p = version(h, b, 0, len);
    if (p + 4 > len || b[p] != ' ' || !digit(b[p + 1]) || !digit(b[p + 2]) || !digit(b[p + 3])) {
      throw new BadMessage(502, "malformed status line");
    }
    h.status = (b[p + 1] - '0') * 100 + (b[p + 2] - '0') * 10 + (b[p + 3] - '0');
    p += 4;
    if (b[p] == ' ') {
      p++;
      while (p < len && VALUE[b[p] & 0xff]) {
        p++;
      }
    }
    if (p + 1 >= len || b[p] != '\r' || b[p + 1] != '\n' || h.status < 100) {
      throw new BadMessage(502, "malformed status line");
    }
    h.startLineEnd = p + 2;
    headers(h, b, p + 2, len, 502);
    return h;
  }

  /** Reads "HTTP/1.0" or "HTTP/1.1" at {@code p}; returns the index after it. */
  private static int version(HttpHead h, byte[] b, int p, int len) throws BadMessage {
    int status = h.request ? 400 : 502;
    if (p + 8 > len
        || b[p] != 'H'
        || b[p + 1] != 'T'
        || b[p + 2] != 'T'
        || b[p + 3] != 'P'
        || b[p + 4] != '/'
        || !digit(b[p + 5])
        || b[p + 6] != '.'
        || !digit(b[p + 7])) {
      throw new BadMessage(status, h.request ? "malformed request line" : "malformed status line");
    }
    if (b[p + 5] != '1' || (b[p + 7] != '0' && b[p + 7] != '1')) {
      throw new BadMessage(h.request ? 505 : 502, "unsupported HTTP version");
    }
    h.http10 = b[p + 7] == '0';
    return p + 8;
  }

  private static void headers(HttpHead h, byte[] b, int p, int len, int status) throws BadMessage {
    FieldBlock f = new FieldBlock(h, b, p, len, status);
    while (f.state == FieldBlock.State.FIELD_LINE) {
      f.line();
    }
    f.transferEncoding();
    f.host();
    f.connection();
  }

  /**
   * The scan of one header block, as a decoder would keep it: where it is ({@link State}), the
   * position, and what the block has said so far that the checks after its end need (the Host
   * count, the Transfer-Encoding line, the Connection count). One small method per step, so that
   * each rule a smuggling attempt could test reads on its own.
   */
  private static final class FieldBlock {
    /** Where the scan is. */
    enum State {
      /** At the start of a line: a field line, or the blank line ending the block. */
      FIELD_LINE,
      /** The blank line was read: what is left are the checks of the block as a whole. */
      END
    }

    final HttpHead h;
    final byte[] b;
    final int len;
    final int status;
    State state = State.FIELD_LINE;
    int p;
    int hosts;
    int te = -1;
    int connections;

    FieldBlock(HttpHead h, byte[] b, int p, int len, int status) {
      this.h = h;
      this.b = b;
      this.p = p;
      this.len = len;
      this.status = status;
    }

    /** Reads the line at {@link #p}: one field, or the end of the block. */
    void line() throws BadMessage {
      if (p + 1 >= len) {
        throw new BadMessage(status, "truncated header block");
      }
      if (b[p] == '\r') {
        if (b[p + 1] != '\n' || p + 2 != len) {
          throw new BadMessage(status, "malformed end of header block");
        }
        state = State.END;
        return;
      }
      int ns = p;
      while (p < len && TCHAR[b[p] & 0xff]) {
        p++;
      }
      if (p == ns) {
        throw new BadMessage(
            status,
            b[p] == ' ' || b[p] == '\t' ? "obsolete line folding" : "malformed header name");
      }
      if (p >= len || b[p] != ':') {
        throw new BadMessage(
            status, "malformed header line (whitespace or control character in the name)");
      }
      int ne = p++;
      while (p < len && (b[p] == ' ' || b[p] == '\t')) {
        p++;
      }
      int vs = p;
      while (p < len && VALUE[b[p] & 0xff]) {
        p++;
      }
      if (p + 1 >= len || b[p] != '\r' || b[p + 1] != '\n') {
        throw new BadMessage(status, "control character or bare CR/LF in a header");
      }
      int ve = p;
      while (ve > vs && (b[ve - 1] == ' ' || b[ve - 1] == '\t')) {
        ve--;
      }
      p += 2;
      field(add(h, ns, ne, vs, ve, p), ns, ne - ns, vs, ve);
    }

    /**
     * Notes field {@code i}, whose name is {@code n} bytes at {@code ns}, if the proxy minds it.
     */
    private void field(int i, int ns, int n, int vs, int ve) throws BadMessage {
      switch (n) {
        case 4 -> {
          if (equalsLower(b, ns, 4, "host")) {
            hosts++;
          }
        }
        case 2, 7, 16 -> hopByHop(i, ns, n);
        case 10 -> connectionOrKeepAlive(i, ns);
        case 14 -> {
          if (equalsLower(b, ns, 14, "content-length")) {
            if (h.contentLength >= 0) {
              throw new BadMessage(status, "more than one Content-Length");
            }
            h.contentLength = contentLength(b, vs, ve, status);
            h.contentLengthHeader = i;
          }
        }
        case 9 -> {
          if (h.request && equalsLower(b, ns, 9, "forwarded")) {
            h.lastForwarded = i;
          }
        }
        case 15 -> {
          if (equalsLower(b, ns, 15, "x-forwarded-for")) {
            h.lastForwardedFor = i;
          }
        }
        case 17 -> transferEncodingOrProto(i, ns);
        default -> {}
      }
    }

    /** TE, Trailer, Upgrade, Proxy-Connection: for this hop only. */
    private void hopByHop(int i, int ns, int n) {
      if (n == 2 && equalsLower(b, ns, 2, "te")) {
        dropHeader(h, i);
      } else if (n == 7 && equalsLower(b, ns, 7, "trailer")) {
        dropHeader(h, i);
      } else if (n == 7 && equalsLower(b, ns, 7, "upgrade")) {
        dropHeader(h, i);
        h.upgradeHeader = true;
      } else if (n == 16 && equalsLower(b, ns, 16, "proxy-connection")) {
        dropHeader(h, i);
      }
    }

    private void connectionOrKeepAlive(int i, int ns) {
      if (equalsLower(b, ns, 10, "connection")) {
        dropHeader(h, i);
        connections++;
        connectionTokens(h, i);
      } else if (equalsLower(b, ns, 10, "keep-alive")) {
        dropHeader(h, i);
      }
    }

    private void transferEncodingOrProto(int i, int ns) throws BadMessage {
      if (equalsLower(b, ns, 17, "transfer-encoding")) {
        if (te >= 0 && h.request) {
          throw new BadMessage(status, "more than one Transfer-Encoding");
        }
        te = i;
      } else if (h.request && equalsLower(b, ns, 17, "x-forwarded-proto")) {
        // Fairway's own: the client cannot say which protocol it used to reach Fairway.
        dropHeader(h, i);
      }
    }

    /** The framing a Transfer-Encoding says, and that it does not meet a Content-Length. */
    void transferEncoding() throws BadMessage {
      if (te < 0) {
        return;
      }
      h.transferEncoding = true;
      h.transferEncodingHeader = h.request ? te : -1;
      int vs = h.field(te, HttpHead.VALUE);
      int ve = h.field(te, HttpHead.VALUE_END);
      if (h.request) {
        if (!(ve - vs == 7 && equalsLower(b, vs, 7, "chunked"))) {
          throw new BadMessage(status, "unsupported Transfer-Encoding: " + h.value(te));
        }
        h.chunked = true;
        if (h.http10) {
          throw new BadMessage(status, "Transfer-Encoding in an HTTP/1.0 request");
        }
      } else {
        // The body is chunked only if chunked is the final coding; otherwise it runs to the close.
        int s = ve;
        while (s > vs && b[s - 1] != ',' && b[s - 1] != ' ' && b[s - 1] != '\t') {
          s--;
        }
        h.chunked = ve - s == 7 && equalsLower(b, s, 7, "chunked");
      }
      if (h.contentLength >= 0) {
        throw new BadMessage(
            status,
            "both Content-Length and Transfer-Encoding present (request smuggling attempt)");
      }
    }

    /** One Host at most on a request; an absolute-form target's authority replaces it. */
    void host() throws BadMessage {
      h.hasHost = hosts > 0;
      if (hosts > 1 && h.request) {
        throw new BadMessage(status, "more than one Host");
      }
      if (h.request && h.absoluteForm()) {
        // RFC 9112 3.2.2: the target's authority is the host; the writer sends it as Host.
        for (int i = 0; i < h.count; i++) {
          if (h.nameIs(i, "host")) {
            dropHeader(h, i);
          }
        }
      }
    }

    /** What the Connection headers drop, whether they ask for a switch, or only keep-alive. */
    void connection() {
      if (connections == 0) {
        return;
      }
      dropConnectionListed(h);
      if (h.request && h.connectionUpgrade && h.upgradeHeader && !h.http10) {
        // RFC 9110 7.8: a protocol switch is asked hop by hop, and this proxy passes the
        // question on (HeadWriter says "Connection: upgrade" again). An HTTP/1.0 request's
        // Upgrade must be ignored, so it stays dropped there.
        h.upgrade = true;
        for (int i = 0; i < h.count; i++) {
          if (h.nameIs(i, "upgrade")) {
            h.drop[i] = false;
          }
        }
      }
      int dropped = 0;
      int c = -1;
      for (int i = 0; i < h.count; i++) {
        if (h.drop[i]) {
          dropped++;
          c = i;
        }
      }
      if (h.lastForwardedFor >= 0 && h.drop[h.lastForwardedFor]) {
        h.lastForwardedFor = -1; // every X-Forwarded-For has the same name, so all are dropped
      }
      if (h.lastForwarded >= 0 && h.drop[h.lastForwarded]) {
        h.lastForwarded = -1;
      }
      h.onlyKeepAlive =
          dropped == 1
              && connections == 1
              && h.nameIs(c, "connection")
              && h.field(c, HttpHead.VALUE_END) - h.field(c, HttpHead.VALUE) == 10
              && equalsLower(b, h.field(c, HttpHead.VALUE), 10, "keep-alive");
    }
  }

  private static int add(HttpHead h, int ns, int ne, int vs, int ve, int lineEnd) {
    int i = h.count++;
    if ((i + 1) * HttpHead.STRIDE > h.fields.length) {
      h.fields = java.util.Arrays.copyOf(h.fields, h.fields.length * 2);
      h.drop = java.util.Arrays.copyOf(h.drop, h.drop.length * 2);
    }
    int o = i * HttpHead.STRIDE;
    h.fields[o] = ns;
    h.fields[o + 1] = ne;
    h.fields[o + 2] = vs;
    h.fields[o + 3] = ve;
    h.fields[o + 4] = lineEnd;
    return i;
  }

  private static void dropHeader(HttpHead h, int i) {
    h.drop[i] = true;
    h.dropsAny = true;
  }

  private static long contentLength(byte[] b, int vs, int ve, int status) throws BadMessage {
    if (ve == vs || ve - vs > 18) {
      throw new BadMessage(status, "invalid Content-Length");
    }
    long n = 0;
    for (int i = vs; i < ve; i++) {
      if (!digit(b[i])) {
        throw new BadMessage(status, "invalid Content-Length");
      }
      n = n * 10 + (b[i] - '0');
    }
    return n;
  }

  /** Receives one token of a comma-separated header value: bytes {@code [start, end)}, trimmed. */
  @FunctionalInterface
  private interface TokenVisitor {
    void token(int start, int end);
  }

  /** Splits header {@code i}'s value at commas and trims each token of spaces and tabs. */
  private static void forEachToken(HttpHead h, int i, TokenVisitor v) {
    byte[] b = h.bytes;
    int p = h.field(i, HttpHead.VALUE);
    int end = h.field(i, HttpHead.VALUE_END);
    while (p < end) {
      int s = p;
      while (p < end && b[p] != ',') {
        p++;
      }
      int e = p;
      p++;
      while (s < e && (b[s] == ' ' || b[s] == '\t')) {
        s++;
      }
      while (e > s && (b[e - 1] == ' ' || b[e - 1] == '\t')) {
        e--;
      }
      v.token(s, e);
    }
  }

  private static boolean isClose(byte[] b, int s, int e) {
    return e - s == 5 && equalsLower(b, s, 5, "close");
  }

  private static boolean isKeepAlive(byte[] b, int s, int e) {
    return e - s == 10 && equalsLower(b, s, 10, "keep-alive");
  }

  /** Notes close / keep-alive in a Connection header. */
  private static void connectionTokens(HttpHead h, int i) {
    byte[] b = h.bytes;
    forEachToken(
        h,
        i,
        (s, e) -> {
          if (isClose(b, s, e)) {
            h.connectionClose = true;
          } else if (isKeepAlive(b, s, e)) {
            h.connectionKeepAlive = true;
          } else if (e - s == 7 && equalsLower(b, s, 7, "upgrade")) {
            h.connectionUpgrade = true;
          }
        });
  }

  /** Drops the headers a Connection header names (RFC 9110 7.6.1): they are for this hop only. */
  private static void dropConnectionListed(HttpHead h) {
    byte[] b = h.bytes;
    for (int c = 0; c < h.count; c++) {
      if (!h.nameIs(c, "connection")) {
        continue;
      }
      forEachToken(
          h,
          c,
          (s, e) -> {
            if (e == s || isClose(b, s, e) || isKeepAlive(b, s, e)) {
              return;
            }
            for (int i = 0; i < h.count; i++) {
              int ns = h.field(i, HttpHead.NAME);
              int n = h.field(i, HttpHead.NAME_END) - ns;
              if (n == e - s && equalsIgnoreCase(b, ns, s, n) && !isFraming(h, i)) {
                dropHeader(h, i);
              }
            }
          });
    }
  }

  /**
   * Framing headers stay whatever Connection says: dropping Content-Length or Transfer-Encoding
   * would change where the next message starts for the backend.
   */
  private static boolean isFraming(HttpHead h, int i) {
    return h.nameIs(i, "content-length") || h.nameIs(i, "transfer-encoding") || h.nameIs(i, "host");
  }

  static boolean equalsLower(byte[] b, int s, int n, String lower) {
    if (n != lower.length()) {
      return false;
    }
    for (int i = 0; i < n; i++) {
      int c = b[s + i];
      if (c >= 'A' && c <= 'Z') {
        c += 'a' - 'A';
      }
      if (c != lower.charAt(i)) {
        return false;
      }
    }
    return true;
  }

  private static boolean equalsIgnoreCase(byte[] b, int x, int y, int n) {
    for (int i = 0; i < n; i++) {
      int c = b[x + i];
      int d = b[y + i];
      if (c != d && ((c | 0x20) != (d | 0x20) || (c | 0x20) < 'a' || (c | 0x20) > 'z')) {
        return false;
      }
    }
    return true;
  }

  private static boolean digit(byte c) {
    return c >= '0' && c <= '9';
  }

  private static BadMessage bad(String reason) {
    return new BadMessage(400, reason);
  }
}
