package io.fairway.proxy.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fairway.proxy.table.RequestKey;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Every rule {@link HeadParser} enforces, and how {@link HeadWriter} rewrites what it accepted. */
class HeadParserTest {
  private static final byte[] IP = "192.0.2.7".getBytes(StandardCharsets.ISO_8859_1);

  static HttpHead request(String s) throws BadMessage {
    byte[] b = s.getBytes(StandardCharsets.ISO_8859_1);
    return HeadParser.parseRequest(b, b.length);
  }

  static HttpHead response(String s) throws BadMessage {
    byte[] b = s.getBytes(StandardCharsets.ISO_8859_1);
    return HeadParser.parseResponse(b, b.length);
  }

  static String upstream(String s) throws BadMessage {
    ByteBuf out = HeadWriter.request(UnpooledByteBufAllocator.DEFAULT, request(s), IP);
    try {
      return out.toString(StandardCharsets.ISO_8859_1);
    } finally {
      out.release();
    }
  }

  static String downstream(String s, HeadWriter.Connection c) throws BadMessage {
    ByteBuf out =
        HeadWriter.response(UnpooledByteBufAllocator.DEFAULT, response(s), false, false, c);
    try {
      return out.toString(StandardCharsets.ISO_8859_1);
    } finally {
      out.release();
    }
  }

  @Test
  void parsesTheRequestLineAndTheHeadersThatMatter() throws BadMessage {
    HttpHead h =
        request(
            "POST /a?b=c HTTP/1.1\r\nHost: x\r\nContent-Length: 12\r\nConnection: keep-alive, Foo\r\nFoo: 1\r\n\r\n");
    assertThat(h.method()).isEqualTo("POST");
    assertThat(h.target()).isEqualTo("/a?b=c");
    assertThat(h.http10).isFalse();
    assertThat(h.contentLength).isEqualTo(12);
    assertThat(h.chunked).isFalse();
    assertThat(h.keepAlive()).isTrue();
    assertThat(h.header("host")).isEqualTo("x");
    assertThat(h.count).isEqualTo(4);
    assertThat(h.drop[2]).as("Connection").isTrue();
    assertThat(h.drop[3]).as("Foo, listed in Connection").isTrue();
    assertThat(h.drop[1]).as("Content-Length").isFalse();
  }

  @Test
  void headerNamesMatchWithoutCaseOnLettersOnly() throws BadMessage {
    HttpHead h =
        request(
            "GET / HTTP/1.1\r\nX_User^Id: a\r\nX\u007fUser~Id: b\r\n\r\n".replace("\u007f", "_"));
    assertThat(h.header("x_user^id")).isEqualTo("a");
    assertThat(h.header("x_user~id")).isEqualTo("b");
    assertThat(new RequestKey(RequestKey.Kind.HEADER, "X_USER^ID").extract(h)).isEqualTo("a");
    assertThat(
            new RequestKey(RequestKey.Kind.COOKIE, "sid")
                .extract(request("GET / HTTP/1.1\r\nCookie: a=1; sid=42\r\n\r\n")))
        .isEqualTo("42");
    assertThat(RequestKey.URL.extract(request("GET /p?q=1 HTTP/1.1\r\n\r\n"))).isEqualTo("/p?q=1");
  }

  @Test
  void keepAliveFollowsTheVersion() throws BadMessage {
    assertThat(request("GET / HTTP/1.1\r\n\r\n").keepAlive()).isTrue();
    assertThat(request("GET / HTTP/1.1\r\nConnection: Close\r\n\r\n").keepAlive()).isFalse();
    assertThat(request("GET / HTTP/1.0\r\n\r\n").keepAlive()).isFalse();
    assertThat(request("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n").keepAlive()).isTrue();
  }

  @Test
  void headerValuesAreTrimmedAndNamesCaseInsensitive() throws BadMessage {
    HttpHead h = request("GET / HTTP/1.1\r\nX-Key: \t v a l \t\r\nCONTENT-LENGTH:0\r\n\r\n");
    assertThat(h.header("x-key")).isEqualTo("v a l");
    assertThat(h.contentLength).isZero();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "GET / HTTP/1.1\nHost: x\r\n\r\n", // bare LF ending the request line
        "GET / HTTP/1.1\r\nHost: x\n\r\n", // bare LF ending a header
        "GET / HTTP/1.1\r\nHost: x\r\n\n", // bare LF ending the head
        "GET / HTTP/1.1\r\nHost: x\rY: z\r\n\r\n", // bare CR
        "GET / HTTP/1.1\r\nX: a\r\n b\r\n\r\n", // obs-fold
        "GET / HTTP/1.1\r\nX: a\r\n\tb\r\n\r\n", // obs-fold with a tab
        "GET / HTTP/1.1\r\nX : a\r\n\r\n", // whitespace before the colon
        "GET / HTTP/1.1\r\nX\0Y: a\r\n\r\n", // NUL in a name
        "GET / HTTP/1.1\r\nX: a\0b\r\n\r\n", // NUL in a value
        "GET / HTTP/1.1\r\nX: a\u0001b\r\n\r\n", // control character in a value
        "GET / HTTP/1.1\r\nX: a\u007fb\r\n\r\n", // DEL in a value
        "GET / HTTP/1.1\r\n: a\r\n\r\n", // empty name
        "GET / HTTP/1.1\r\nNoColon\r\n\r\n",
        "GET  / HTTP/1.1\r\n\r\n", // two spaces
        "GET / HTTP/1.1 \r\n\r\n", // trailing space
        "GET /\tx HTTP/1.1\r\n\r\n", // tab in the target
        "GET\t/ HTTP/1.1\r\n\r\n",
        "GET / HTTP/1.x\r\n\r\n",
        "GET / http/1.1\r\n\r\n",
        "G(T / HTTP/1.1\r\n\r\n", // separator in the method
        " GET / HTTP/1.1\r\n\r\n",
        "GET /\r\n\r\n", // HTTP/0.9
        "POST / HTTP/1.1\r\nContent-Length: 4\r\nContent-Length: 5\r\n\r\n", // differing duplicates
        "POST / HTTP/1.1\r\nContent-Length: 4\r\nContent-Length: 4\r\n\r\n", // even equal ones
        "POST / HTTP/1.1\r\nContent-Length: 4, 4\r\n\r\n",
        "POST / HTTP/1.1\r\nContent-Length: +4\r\n\r\n",
        "POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n",
        "POST / HTTP/1.1\r\nContent-Length: 0x10\r\n\r\n",
        "POST / HTTP/1.1\r\nContent-Length:\r\n\r\n",
        "POST / HTTP/1.1\r\nContent-Length: 99999999999999999999\r\n\r\n", // overflow
        "POST / HTTP/1.1\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n", // smuggling
        "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 4\r\n\r\n",
        "POST / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", // unsupported coding
        "POST / HTTP/1.1\r\nTransfer-Encoding: chunked, chunked\r\n\r\n",
        "POST / HTTP/1.1\r\nTransfer-Encoding: xchunked\r\n\r\n",
        "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n",
        "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", // TE in HTTP/1.0 (RFC 9112 6.1)
        "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
      })
  void refusesAmbiguousOrMalformedRequests(String head) {
    assertThatThrownBy(() -> request(head))
        .isInstanceOf(BadMessage.class)
        .satisfies(e -> assertThat(((BadMessage) e).status).isEqualTo(400));
  }

  @Test
  void anUnknownVersionIs505() {
    assertThatThrownBy(() -> request("GET / HTTP/2.0\r\n\r\n"))
        .isInstanceOf(BadMessage.class)
        .satisfies(e -> assertThat(((BadMessage) e).status).isEqualTo(505));
  }

  @Test
  void acceptsWhatIsMerelyUnusual() throws BadMessage {
    assertThat(request("GET /caf\u00e9 HTTP/1.1\r\nX: caf\u00e9\r\n\r\n").header("x"))
        .isEqualTo("caf\u00e9"); // obs-text
    assertThat(request("OPTIONS * HTTP/1.1\r\n\r\n").target()).isEqualTo("*");
    assertThat(request("POST / HTTP/1.1\r\nTransfer-Encoding: Chunked \r\n\r\n").chunked).isTrue();
    assertThat(request("GET / HTTP/1.1\r\nX-Empty:\r\n\r\n").header("x-empty")).isEmpty();
  }

  @Test
  void upstreamRequestDropsHopByHopAppendsTheClientAndSpeaks11() throws BadMessage {
    assertThat(
            upstream(
                "GET /p HTTP/1.0\r\nHost: h\r\nConnection: keep-alive, X-Secret\r\nX-Secret: s\r\nKeep-Alive: 5\r\n"
                    + "TE: trailers\r\nUpgrade: websocket\r\nProxy-Connection: x\r\nTrailer: y\r\nAccept: */*\r\n\r\n"))
        .isEqualTo(
            "GET /p HTTP/1.1\r\nHost: h\r\nAccept: */*\r\nX-Forwarded-For: 192.0.2.7\r\nX-Forwarded-Proto: http\r\n\r\n");
  }

  @Test
  void clientAddressGoesAtTheEndOfTheLastForwardedFor() throws BadMessage {
    // The client's X-Forwarded-Proto is not believed: Fairway says what the client used.
    assertThat(
            upstream(
                "GET / HTTP/1.1\r\nX-Forwarded-For: 10.0.0.1\r\nA: b\r\nx-forwarded-for: 10.0.0.2 \r\nX-Forwarded-Proto: https\r\n\r\n"))
        .isEqualTo(
            "GET / HTTP/1.1\r\nX-Forwarded-For: 10.0.0.1\r\nA: b\r\nx-forwarded-for: 10.0.0.2, 192.0.2.7\r\nX-Forwarded-Proto: http\r\n\r\n");
    assertThat(upstream("GET / HTTP/1.1\r\nX-Forwarded-For:\r\nX-Forwarded-Proto: http\r\n\r\n"))
        .isEqualTo(
            "GET / HTTP/1.1\r\nX-Forwarded-For:192.0.2.7\r\nX-Forwarded-Proto: http\r\n\r\n");
  }

  @Test
  void connectionCannotDropFramingHeaders() throws BadMessage {
    assertThat(
            upstream(
                "POST / HTTP/1.1\r\nConnection: Content-Length, Host\r\nHost: h\r\nContent-Length: 3\r\n\r\n"))
        .contains("Content-Length: 3\r\n")
        .contains("Host: h\r\n");
  }

  @Test
  void responseFraming() throws BadMessage {
    assertThat(response("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n").contentLength).isEqualTo(5);
    HttpHead gz = response("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n");
    assertThat(gz.transferEncoding).isTrue();
    assertThat(gz.chunked).as("not chunked last: close-delimited").isFalse();
    assertThat(response("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n").chunked)
        .isTrue();
    assertThat(response("HTTP/1.1 204\r\n\r\n").status).isEqualTo(204);
    assertThat(response("HTTP/1.0 200 OK\r\n\r\n").keepAlive()).isFalse();
    assertThat(response("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n").keepAlive()).isFalse();
    assertThatThrownBy(
            () ->
                response(
                    "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n"))
        .isInstanceOf(BadMessage.class)
        .satisfies(e -> assertThat(((BadMessage) e).status).isEqualTo(502));
    assertThatThrownBy(() -> response("HTTP/1.1 2000 OK\r\n\r\n")).isInstanceOf(BadMessage.class);
    assertThatThrownBy(() -> response("HTTP/1.1 099 OK\r\n\r\n")).isInstanceOf(BadMessage.class);
    assertThatThrownBy(() -> response("HTTP/1.1 200 OK\r\nX: a\r\n b\r\n\r\n"))
        .isInstanceOf(BadMessage.class);
  }

  @Test
  void aResponseThatNeedsNoChangeGoesOnAsItCame() throws BadMessage {
    String nginx =
        "HTTP/1.1 200 OK\r\nServer: nginx\r\nContent-Length: 3\r\nConnection: keep-alive\r\n\r\n";
    assertThat(downstream(nginx, HeadWriter.Connection.UNCHANGED)).isEqualTo(nginx);
    assertThat(downstream(nginx, HeadWriter.Connection.KEEP_ALIVE)).isEqualTo(nginx);
    assertThat(downstream(nginx, HeadWriter.Connection.CLOSE))
        .isEqualTo(
            "HTTP/1.1 200 OK\r\nServer: nginx\r\nContent-Length: 3\r\nConnection: close\r\n\r\n");
    assertThat(
            downstream(
                "HTTP/1.1 200 OK\r\nConnection: keep-alive, X-Hop\r\nX-Hop: 1\r\nKeep-Alive: timeout=5\r\nContent-Length: 0\r\n\r\n",
                HeadWriter.Connection.UNCHANGED))
        .isEqualTo("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");
  }

  @Test
  void aProtocolSwitchRequestKeepsItsUpgradeAndSaysConnectionUpgradeAgain() throws BadMessage {
    String ws =
        "GET /ws HTTP/1.1\r\nHost: x\r\nConnection: keep-alive, Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Key: k\r\n\r\n";
    assertThat(request(ws).upgrade).isTrue();
    assertThat(upstream(ws))
        .isEqualTo(
            "GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nSec-WebSocket-Key: k\r\n"
                + "X-Forwarded-For: 192.0.2.7\r\nX-Forwarded-Proto: http\r\nConnection: upgrade\r\n\r\n");
    // Upgrade not listed in Connection, or Connection without an Upgrade header: no switch asked.
    String unlisted = "GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n\r\n";
    assertThat(request(unlisted).upgrade).isFalse();
    assertThat(upstream(unlisted)).doesNotContainIgnoringCase("upgrade");
    assertThat(request("GET / HTTP/1.1\r\nHost: x\r\nConnection: upgrade\r\n\r\n").upgrade)
        .isFalse();
    // RFC 9110 7.8: Upgrade in an HTTP/1.0 request is ignored.
    String old = "GET / HTTP/1.0\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n";
    assertThat(request(old).upgrade).isFalse();
    assertThat(upstream(old)).doesNotContainIgnoringCase("upgrade");
  }

  @Test
  void connectIsNotImplemented() {
    assertThatThrownBy(
            () -> request("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n"))
        .isInstanceOf(BadMessage.class)
        .satisfies(e -> assertThat(((BadMessage) e).status).isEqualTo(501));
  }

  @Test
  void aRequestWithoutHostGetsTheAddressTheClientReached() throws BadMessage {
    byte[] host = "127.0.0.1:8080".getBytes(StandardCharsets.ISO_8859_1);
    ByteBuf out =
        HeadWriter.request(
            UnpooledByteBufAllocator.DEFAULT, request("GET / HTTP/1.0\r\n\r\n"), IP, host);
    assertThat(out.toString(StandardCharsets.ISO_8859_1))
        .isEqualTo(
            "GET / HTTP/1.1\r\nX-Forwarded-For: 192.0.2.7\r\nX-Forwarded-Proto: http\r\nHost: 127.0.0.1:8080\r\n\r\n");
    out.release();
    out =
        HeadWriter.request(
            UnpooledByteBufAllocator.DEFAULT,
            request("GET / HTTP/1.0\r\nHost: a\r\n\r\n"),
            IP,
            host);
    assertThat(out.toString(StandardCharsets.ISO_8859_1))
        .containsOnlyOnce("Host:")
        .contains("Host: a\r\n");
    out.release();
  }
}
