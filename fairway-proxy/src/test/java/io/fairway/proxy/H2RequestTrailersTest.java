package io.fairway.proxy;

import static io.fairway.proxy.RawH2.CONTINUATION;
import static io.fairway.proxy.RawH2.DATA;
import static io.fairway.proxy.RawH2.END_HEADERS;
import static io.fairway.proxy.RawH2.END_STREAM;
import static io.fairway.proxy.RawH2.HEADERS;
import static io.fairway.proxy.RawH2.PROTOCOL_ERROR;
import static io.fairway.proxy.RawH2.frame;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Headers;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A request's trailers reach an HTTP/2 backend as a trailing HEADERS frame, whether the client sent
 * them as HTTP/2 trailers or in an HTTP/1.1 chunked body's last chunk; the fields that frame or
 * route a message are left out, a malformed trailer section resets the stream, and trailers that a
 * request with a content-length cannot carry are dropped and counted.
 */
class H2RequestTrailersTest {
  @AutoClose final Cleanup cleanup = new Cleanup();
  private RecordingH2Server backend;
  private H2BackendTest.Front front;

  @BeforeEach
  void start() throws Exception {
    backend = cleanup.track(new RecordingH2Server());
    front = H2BackendTest.front(cleanup, null, List.of(backend.address()));
  }

  private static Http2Headers post(String path) {
    return new DefaultHttp2Headers()
        .method("POST")
        .scheme("http")
        .path(path)
        .authority("127.0.0.1");
  }

  private static byte[] data(String s, int flags, int stream) {
    return frame(DATA, flags, stream, s.getBytes(StandardCharsets.US_ASCII));
  }

  private static Map<String, String> fields(Http2Headers h) {
    Map<String, String> m = new TreeMap<>();
    h.forEach(e -> m.put(e.getKey().toString(), e.getValue().toString()));
    return m;
  }

  @Test
  void anHttp2ClientsTrailersReachTheBackendWithoutHostOrContentLength() throws Exception {
    Http2Headers trailers =
        new DefaultHttp2Headers()
            .add("x-checksum", "abc123")
            .add("x-count", "2")
            .add("host", "elsewhere.example")
            .add("content-length", "99");
    try (RawH2 c = cleanup.track(RawH2.connect(front.vip(), true))) {
      c.send(
          frame(HEADERS, END_HEADERS, 1, RawH2.block(post("/upload"))),
          data("hello ", 0, 1),
          data("world", 0, 1),
          frame(HEADERS, END_HEADERS | END_STREAM, 1, RawH2.block(trailers)));
      RecordingH2Server.Received r = backend.next();
      assertThat(r).as("the request reached the backend").isNotNull();
      assertThat(r.body()).isEqualTo("hello world");
      assertThat(r.trailers()).as("trailing HEADERS").isNotNull();
      assertThat(fields(r.trailers())).isEqualTo(Map.of("x-checksum", "abc123", "x-count", "2"));
      await().atMost(Duration.ofSeconds(5)).until(() -> "200".equals(c.statuses.get(1)));
    }
    assertThat(front.table().h2Stats().trailersDropped()).isZero();
  }

  @Test
  void anHttp11ChunkedBodysTrailersReachTheBackendAsHeaders() throws Exception {
    InetSocketAddress vip = front.vip();
    try (Socket s = new Socket(vip.getAddress(), vip.getPort())) {
      s.setSoTimeout(5000);
      OutputStream out = s.getOutputStream();
      out.write(
          ("POST /upload HTTP/1.1\r\nHost: app\r\nTransfer-Encoding: chunked\r\n\r\n"
                  + "5\r\nhello\r\n0\r\nX-Checksum: abc123\r\nTransfer-Encoding: x\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      RecordingH2Server.Received r = backend.next();
      assertThat(r).as("the request reached the backend").isNotNull();
      assertThat(r.body()).isEqualTo("hello");
      assertThat(r.trailers()).as("trailing HEADERS").isNotNull();
      assertThat(fields(r.trailers())).isEqualTo(Map.of("x-checksum", "abc123"));
      byte[] head = new byte[12];
      InputStream in = s.getInputStream();
      assertThat(in.readNBytes(head, 0, head.length)).isEqualTo(head.length);
      assertThat(new String(head, StandardCharsets.US_ASCII)).isEqualTo("HTTP/1.1 200");
    }
  }

  @Test
  void aRequestWithContentLengthHasItsTrailersDroppedAndCounted() throws Exception {
    try (RawH2 c = cleanup.track(RawH2.connect(front.vip(), true))) {
      c.send(
          frame(HEADERS, END_HEADERS, 1, RawH2.block(post("/upload").add("content-length", "5"))),
          data("hello", 0, 1),
          frame(
              HEADERS,
              END_HEADERS | END_STREAM,
              1,
              RawH2.block(new DefaultHttp2Headers().add("x-checksum", "abc123"))));
      RecordingH2Server.Received r = backend.next();
      assertThat(r).as("the request reached the backend").isNotNull();
      assertThat(r.body()).isEqualTo("hello");
      assertThat(r.trailers()).as("no trailing HEADERS").isNull();
      await().atMost(Duration.ofSeconds(5)).until(() -> "200".equals(c.statuses.get(1)));
    }
    assertThat(front.table().h2Stats().trailersDropped()).isEqualTo(1);
  }

  /**
   * Trailers the codec finds malformed (RFC 9113 8.1, 8.2) — without END_STREAM, with a
   * connection-specific field, a pseudo-header, or a CR LF in a value that would write a field of
   * the client's own into an HTTP/1.1 trailer section — reset the stream, and the request never
   * ends normally at the backend.
   */
  @ParameterizedTest
  @ValueSource(strings = {"no-end-stream", "connection", ":path", "crlf"})
  void malformedTrailersResetTheStream(String kind) throws Exception {
    Http2Headers trailers = new DefaultHttp2Headers(false);
    switch (kind) {
      case "connection" -> trailers.add("connection", "close");
      case ":path" -> trailers.add(":path", "/other");
      case "crlf" -> trailers.add("x-a", "1\r\nx-injected: 2");
      default -> trailers.add("x-checksum", "abc123");
    }
    int flags = kind.equals("no-end-stream") ? END_HEADERS : END_HEADERS | END_STREAM;
    try (RawH2 c = cleanup.track(RawH2.connect(front.vip(), true))) {
      c.send(
          frame(HEADERS, END_HEADERS, 1, RawH2.block(post("/upload"))),
          data("hello", 0, 1),
          frame(HEADERS, flags, 1, RawH2.block(trailers)));
      await().atMost(Duration.ofSeconds(10)).until(() -> c.resetsWith(PROTOCOL_ERROR) == 1);
    }
    assertThat(backend.nextWithin(Duration.ofMillis(300)))
        .as("no request ended normally at the backend")
        .isNull();
  }

  /**
   * Where the header limit allows more than an HTTP/1.1 trailer section may hold, trailers beyond
   * that are malformed here: reset and counted.
   */
  @Test
  void aTrailerSectionTooLargeForTheLastChunkIsMalformed() throws Exception {
    H2BackendTest.Front big =
        H2BackendTest.front(
            cleanup,
            null,
            List.of(backend.address()),
            ProxyOptions.builder().ioThreads(1).maxHeaderSize(65536).build(),
            H2Proxy.h2c());
    byte[] block = RawH2.block(new DefaultHttp2Headers().add("x-big", "v".repeat(20_000)));
    int half = block.length / 2; // each part within the 16 KB frame size
    try (RawH2 c = cleanup.track(RawH2.connect(big.vip(), true))) {
      c.send(
          frame(HEADERS, END_HEADERS, 1, RawH2.block(post("/upload"))),
          data("hello", 0, 1),
          frame(HEADERS, END_STREAM, 1, Arrays.copyOfRange(block, 0, half)),
          frame(CONTINUATION, END_HEADERS, 1, Arrays.copyOfRange(block, half, block.length)));
      await().atMost(Duration.ofSeconds(10)).until(() -> c.resetsWith(PROTOCOL_ERROR) == 1);
    }
    assertThat(big.table().h2Stats().malformed()).isEqualTo(1);
    assertThat(backend.nextWithin(Duration.ofMillis(300)))
        .as("no request ended normally at the backend")
        .isNull();
  }
}
