package io.fairway.proxy.http;

import static io.fairway.proxy.http.HeadParserTest.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What the client cannot change about the request Fairway forwards: its own forwarding headers, the
 * host of an absolute-form target, the framing it decided on.
 */
class HeadRewriteTest {
  private static final byte[] IP = "192.0.2.7".getBytes(StandardCharsets.ISO_8859_1);

  private static String upstream(String s, boolean forwarded) throws BadMessage {
    return upstream(s, IP, forwarded);
  }

  private static String upstream(String s, byte[] ip, boolean forwarded) throws BadMessage {
    ByteBuf out =
        HeadWriter.request(UnpooledByteBufAllocator.DEFAULT, request(s), ip, null, forwarded);
    try {
      return out.toString(StandardCharsets.ISO_8859_1);
    } finally {
      out.release();
    }
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "close, X-Forwarded-For",
        "X-Forwarded-For, X-Forwarded-Proto",
        "keep-alive, x-forwarded-for, forwarded"
      })
  void connectionCannotRemoveFairwaysForwardingHeaders(String connection) throws BadMessage {
    String up =
        upstream(
            "GET / HTTP/1.1\r\nHost: h\r\nX-Forwarded-For: 10.6.6.6\r\nForwarded: for=10.6.6.6\r\n"
                + "Connection: "
                + connection
                + "\r\n\r\n",
            true);
    assertThat(up)
        .contains("\r\nX-Forwarded-For: 192.0.2.7\r\n")
        .contains("\r\nX-Forwarded-Proto: http\r\n")
        .containsOnlyOnce("X-Forwarded-For")
        .containsOnlyOnce("X-Forwarded-Proto");
    assertThat(up).containsIgnoringCase("Forwarded: for=").contains("for=192.0.2.7;proto=http");
    assertThat(up).doesNotContainIgnoringCase("connection");
    if (connection.contains("orwarded,") || connection.endsWith("forwarded")) {
      assertThat(up)
          .doesNotContain("10.6.6.6, 192.0.2.7"); // the client's chain went with its header
    }
  }

  @Test
  void theClientsXForwardedProtoIsReplaced() throws BadMessage {
    assertThat(upstream("GET / HTTP/1.1\r\nHost: h\r\nX-Forwarded-Proto: https\r\n\r\n", false))
        .isEqualTo(
            "GET / HTTP/1.1\r\nHost: h\r\nX-Forwarded-For: 192.0.2.7\r\nX-Forwarded-Proto: http\r\n\r\n");
  }

  @Test
  void forwardedIsAnOptionAndAppendsToTheClientsChain() throws BadMessage {
    assertThat(upstream("GET / HTTP/1.1\r\nHost: h\r\n\r\n", false)).doesNotContain("Forwarded:");
    assertThat(upstream("GET / HTTP/1.1\r\nHost: h\r\n\r\n", true))
        .isEqualTo(
            "GET / HTTP/1.1\r\nHost: h\r\nX-Forwarded-For: 192.0.2.7\r\nForwarded: for=192.0.2.7;proto=http\r\n"
                + "X-Forwarded-Proto: http\r\n\r\n");
    assertThat(upstream("GET / HTTP/1.1\r\nHost: h\r\nForwarded: for=10.0.0.1\r\n\r\n", true))
        .contains("Forwarded: for=10.0.0.1, for=192.0.2.7;proto=http\r\n")
        .containsOnlyOnce("Forwarded: ");
    // RFC 7239 6: an IPv6 node is bracketed and quoted.
    assertThat(
            upstream(
                "GET / HTTP/1.1\r\nHost: h\r\n\r\n",
                "2001:db8::1".getBytes(StandardCharsets.ISO_8859_1),
                true))
        .contains("Forwarded: for=\"[2001:db8::1]\";proto=http\r\n");
  }

  @Test
  void anAbsoluteFormTargetsAuthorityIsTheHost() throws BadMessage {
    HttpHead h =
        request("GET http://shop.example:8080/a?b HTTP/1.1\r\nHost: other.example\r\n\r\n");
    assertThat(h.header("host"))
        .as("what hashing by HEADER Host and the logs see")
        .isEqualTo("shop.example:8080");
    assertThat(
            upstream(
                "GET http://shop.example:8080/a?b HTTP/1.1\r\nHost: other.example\r\n\r\n", false))
        .isEqualTo(
            "GET http://shop.example:8080/a?b HTTP/1.1\r\nX-Forwarded-For: 192.0.2.7\r\nX-Forwarded-Proto: http\r\n"
                + "Host: shop.example:8080\r\n\r\n");
    assertThat(request("GET HTTPS://x.example HTTP/1.1\r\nHost: x.example\r\n\r\n").header("host"))
        .isEqualTo("x.example");
    assertThat(request("GET /a HTTP/1.1\r\nHost: h\r\n\r\n").absoluteForm()).isFalse();
    for (String bad : new String[] {"ftp://x/", "http:///a", "http://user@x/"}) {
      assertThatThrownBy(() -> request("GET " + bad + " HTTP/1.1\r\nHost: x\r\n\r\n"))
          .as(bad)
          .isInstanceOf(BadMessage.class)
          .satisfies(e -> assertThat(((BadMessage) e).status).isEqualTo(400));
    }
  }

  @Test
  void framingHeadersGoOutInCanonicalForm() throws BadMessage {
    // RFC 9110 5.6.3 allows a tab as whitespace; a backend that does not (nginx 1.22 answers 501)
    // must not see anything but the framing Fairway decided on.
    assertThat(
            upstream(
                "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding:\tchunked\r\nA: b\r\n\r\n", false))
        .isEqualTo(
            "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nA: b\r\n"
                + "X-Forwarded-For: 192.0.2.7\r\nX-Forwarded-Proto: http\r\n\r\n");
    assertThat(
            upstream(
                "POST / HTTP/1.1\r\nHost: h\r\ntransfer-encoding: \tCHUNKED\t \r\n\r\n", false))
        .contains("\r\nTransfer-Encoding: chunked\r\n")
        .doesNotContain("CHUNKED");
    assertThat(upstream("POST / HTTP/1.1\r\nHost: h\r\ncontent-length:\t 12\t\r\n\r\n", false))
        .contains("\r\nContent-Length: 12\r\n")
        .doesNotContain("\t");
  }
}
