package io.fairway.proxy.http2;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Headers;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The last chunk a request's HTTP/2 trailers become, and the trailer sections refused. */
class H2RequestTest {
  private static String lastChunk(Http2Headers trailers) throws H2Request.Invalid {
    return new String(H2Request.lastChunk(trailers), StandardCharsets.ISO_8859_1);
  }

  private static Http2Headers fields(String... nameValue) {
    Http2Headers h = new DefaultHttp2Headers(false);
    for (int i = 0; i < nameValue.length; i += 2) {
      h.add(nameValue[i], nameValue[i + 1]);
    }
    return h;
  }

  @Test
  void trailersBecomeTheLastChunksTrailerSection() throws Exception {
    assertThat(lastChunk(fields("grpc-status", "0", "x-sum", "a b")))
        .isEqualTo("0\r\ngrpc-status: 0\r\nx-sum: a b\r\n\r\n");
    assertThat(lastChunk(fields())).isEqualTo("0\r\n\r\n");
  }

  @Test
  void fieldsThatFrameOrRouteAreLeftOut() throws Exception {
    assertThat(lastChunk(fields("host", "x", "content-length", "9", "trailer", "y", "x-a", "1")))
        .isEqualTo("0\r\nx-a: 1\r\n\r\n");
  }

  @Test
  void malformedTrailerSectionsAreRefused() {
    for (Http2Headers bad :
        new Http2Headers[] {
          fields(":path", "/x"),
          fields("connection", "close"),
          fields("transfer-encoding", "chunked"),
          fields("te", "trailers"),
          fields("x-a", "1\r\nx-b: 2"),
          fields("x-a", "1\nx"),
          fields("x-a", "nul\0"),
          fields("bad name", "1"),
          fields("x-big", "v".repeat(H2Request.MAX_TRAILER_SECTION))
        }) {
      assertThatThrownBy(() -> H2Request.lastChunk(bad))
          .as(bad.toString())
          .isInstanceOfSatisfying(H2Request.Invalid.class, e -> assertThat(e.status).isZero());
    }
  }
}
