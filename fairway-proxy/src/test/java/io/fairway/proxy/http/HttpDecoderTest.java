package io.fairway.proxy.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.proxy.ProxyOptions;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/**
 * The request and response decoders over a real channel pipeline: framing of bodies, chunked
 * validation, limits, pipelining, and properties over random heads and random corruption.
 */
class HttpDecoderTest {

  /**
   * What a decoder emitted, in a comparable form: "H:<head>", "B:<bytes>", "END", "BAD:<status>".
   */
  static List<String> decodeRequests(byte[] input, int... cuts) {
    EmbeddedChannel ch = new EmbeddedChannel(new StrictRequestDecoder(ProxyOptions.defaults()));
    return feed(ch, input, cuts);
  }

  static List<String> feed(EmbeddedChannel ch, byte[] input, int... cuts) {
    int from = 0;
    for (int c : cuts) {
      if (c > from && c < input.length) {
        ch.writeInbound(Unpooled.wrappedBuffer(input, from, c - from));
        from = c;
      }
    }
    ch.writeInbound(Unpooled.wrappedBuffer(input, from, input.length - from));
    ch.finish();
    List<String> out = new ArrayList<>();
    Object m;
    StringBuilder body = null;
    while ((m = ch.readInbound()) != null) {
      if (m instanceof ByteBuf b) {
        // Adjacent body slices are one stream; how reads split it does not matter.
        if (body == null) {
          body = new StringBuilder();
        }
        body.append(b.toString(StandardCharsets.ISO_8859_1));
        b.release();
        continue;
      }
      if (body != null) {
        out.add("B:" + body);
        body = null;
      }
      if (m instanceof HttpHead h) {
        out.add("H:" + new String(h.bytes, 0, h.length, StandardCharsets.ISO_8859_1));
      } else if (m instanceof StrictRequestDecoder.Malformed bad) {
        out.add("BAD:" + bad.status());
      } else {
        out.add(String.valueOf(m));
      }
    }
    if (body != null) {
      out.add("B:" + body);
    }
    return out;
  }

  static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.ISO_8859_1);
  }

  @Test
  void bodilessRequestsEndAtOnceAndPipelinedOnesFollow() {
    assertThat(decodeRequests(bytes("GET /a HTTP/1.1\r\n\r\n\r\nGET /b HTTP/1.1\r\n\r\n")))
        .containsExactly("H:GET /a HTTP/1.1\r\n\r\n", "END", "H:GET /b HTTP/1.1\r\n\r\n", "END");
  }

  @Test
  void contentLengthBodyIsCountedOut() {
    assertThat(
            decodeRequests(
                bytes("POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\nhelloGET / HTTP/1.1\r\n\r\n"),
                20,
                40,
                45))
        .containsExactly(
            "H:POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\n",
            "B:hello",
            "END",
            "H:GET / HTTP/1.1\r\n\r\n",
            "END");
  }

  @Test
  void chunkedBodyPassesVerbatimWithExtensionsAndTrailers() {
    String body = "5;ext=1\r\nhello\r\nA\r\n0123456789\r\n0\r\nX-Sum: 1\r\n\r\n";
    assertThat(
            decodeRequests(
                bytes(
                    "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
                        + body
                        + "GET / HTTP/1.1\r\n\r\n"),
                50,
                53,
                60,
                75))
        .containsExactly(
            "H:POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n",
            "B:" + body,
            "END",
            "H:GET / HTTP/1.1\r\n\r\n",
            "END");
  }

  @Test
  void badChunkingEndsTheConnectionsRequests() {
    for (String bad :
        List.of(
            "zz\r\nhello\r\n0\r\n\r\n",
            "5\nhello\r\n0\r\n\r\n",
            "5\r\nhelloXX0\r\n\r\n",
            "-5\r\nhello\r\n0\r\n\r\n",
            "fffffffffffffffff\r\n",
            "5 5\r\nhello\r\n0\r\n\r\n",
            "5;a\u0001\r\nhello\r\n0\r\n\r\n",
            "0\r\nbad trailer\r\n\r\n",
            "0\r\nX: a\nY: b\r\n\r\n",
            " 5\r\nhello\r\n0\r\n\r\n")) {
      List<String> out =
          decodeRequests(
              bytes(
                  "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
                      + bad
                      + "GET /smuggled HTTP/1.1\r\n\r\n"));
      assertThat(out).as(bad).last().isEqualTo("BAD:400");
      assertThat(out).as(bad).noneMatch(s -> s.contains("smuggled") || s.equals("END"));
    }
  }

  @Test
  void tooLongRequestLineIs414AndTooManyHeaderBytes431() {
    // Defaults: 8192 for the request line, 16384 for the header lines.
    assertThat(decodeRequests(bytes("GET /" + "a".repeat(8100) + " HTTP/1.1\r\n\r\n")))
        .containsExactly("H:GET /" + "a".repeat(8100) + " HTTP/1.1\r\n\r\n", "END");
    assertThat(decodeRequests(bytes("GET /" + "a".repeat(9000) + " HTTP/1.1\r\n\r\n")))
        .containsExactly("BAD:414");
    assertThat(decodeRequests(bytes("GET /" + "a".repeat(9000)), 100, 5000))
        .containsExactly("BAD:414");
    assertThat(decodeRequests(bytes("GET / HTTP/1.1\r\nX: " + "a".repeat(17000) + "\r\n\r\n")))
        .containsExactly("BAD:431");
    assertThat(decodeRequests(bytes("GET / HTTP/1.1\r\n" + "X: a\r\n".repeat(3000)), 100, 1000))
        .containsExactly("BAD:431");
    assertThat(decodeRequests(bytes("GET / HTTP/1.1\r\n" + "X: a\r\n".repeat(2500) + "\r\n")))
        .hasSize(2)
        .last()
        .isEqualTo("END");
  }

  @Test
  void anInputEndingInTheMiddleOfARequestSaysSo() {
    assertThat(decodeRequests(bytes("GET / HTTP/1.1\r\nHost: x\r\n"))).containsExactly("TRUNCATED");
    assertThat(decodeRequests(bytes("POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\nab")))
        .containsExactly("H:POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\n", "B:ab", "TRUNCATED");
    assertThat(
            decodeRequests(
                bytes("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nab\r\n")))
        .last()
        .isEqualTo("TRUNCATED");
    assertThat(decodeRequests(bytes("GET / HTTP/1.1\r\n\r\n\r\n")))
        .as("a stray CRLF is no request")
        .containsExactly("H:GET / HTTP/1.1\r\n\r\n", "END");
  }

  @Test
  void whatFollowsAProtocolSwitchRequestIsHeldUntilTheAnswer() {
    StrictRequestDecoder d = new StrictRequestDecoder(ProxyOptions.defaults());
    EmbeddedChannel ch = new EmbeddedChannel(d);
    String up = "GET /ws HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n";
    ch.writeInbound(Unpooled.wrappedBuffer(bytes(up + "GET /a HTTP/1.1\r\n")));
    ch.writeInbound(Unpooled.wrappedBuffer(bytes("\r\nGET /b")));
    assertThat(drain(ch)).containsExactly("H:" + up, "END");
    assertThat(d.holding()).isTrue();
    // Declined: it was HTTP after all.
    d.resume();
    assertThat(drain(ch)).containsExactly("H:GET /a HTTP/1.1\r\n\r\n", "END");
    // Held when the input ends, then declined: decoded, and the unfinished request reported.
    d = new StrictRequestDecoder(ProxyOptions.defaults());
    ch = new EmbeddedChannel(d);
    ch.writeInbound(
        Unpooled.wrappedBuffer(
            bytes(
                "POST /ws HTTP/1.1\r\nUpgrade: x\r\nConnection: upgrade\r\nContent-Length: 2\r\n\r\nokGET /a HTTP/1.1\r\n\r\nGET")));
    ch.pipeline()
        .fireUserEventTriggered(io.netty.channel.socket.ChannelInputShutdownEvent.INSTANCE);
    assertThat(drain(ch))
        .containsExactly(
            "H:POST /ws HTTP/1.1\r\nUpgrade: x\r\nConnection: upgrade\r\nContent-Length: 2\r\n\r\n",
            "B:ok",
            "END");
    d.resume();
    assertThat(drain(ch)).containsExactly("H:GET /a HTTP/1.1\r\n\r\n", "END", "TRUNCATED");
    ch.finishAndReleaseAll();
  }

  private static List<String> drain(EmbeddedChannel ch) {
    List<String> out = new ArrayList<>();
    Object m;
    while ((m = ch.readInbound()) != null) {
      if (m instanceof ByteBuf b) {
        out.add("B:" + b.toString(StandardCharsets.ISO_8859_1));
        b.release();
      } else if (m instanceof HttpHead h) {
        out.add("H:" + new String(h.bytes, 0, h.length, StandardCharsets.ISO_8859_1));
      } else {
        out.add(String.valueOf(m));
      }
    }
    return out;
  }

  @Test
  void aSwitchAnsweredWith101LeavesTheRestUndecoded() {
    ResponseDecoder d = new ResponseDecoder(16384);
    EmbeddedChannel ch = new EmbeddedChannel(d);
    d.expect(false, false, true);
    ch.writeInbound(
        Unpooled.wrappedBuffer(
            bytes("HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\n\r\n\u0081\u0002hi")));
    assertThat(drain(ch))
        .containsExactly("H:HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\n\r\n");
    ch.pipeline().remove(d); // the tunnel's relay gets what came after the 101
    assertThat(drain(ch)).containsExactly("B:\u0081\u0002hi");
    // Without a switch asked for, a 101 is a broken backend.
    ch = new EmbeddedChannel(new ResponseDecoder(16384));
    ch.writeInbound(
        Unpooled.wrappedBuffer(bytes("HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\n\r\n")));
    assertThat(drain(ch))
        .last()
        .isEqualTo("Malformed[status=502, reason=unrequested protocol switch]");
  }

  @Test
  void responsesFrameByRequestAndStatus() {
    EmbeddedChannel ch = new EmbeddedChannel(new ResponseDecoder(16384));
    ((ResponseDecoder) ch.pipeline().first()).expect(true, false, false);
    assertThat(feed(ch, bytes("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n")))
        .as("HEAD: no body whatever Content-Length says")
        .containsExactly("H:HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n", "END");
    ch = new EmbeddedChannel(new ResponseDecoder(16384));
    assertThat(
            feed(
                ch,
                bytes(
                    "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\nHTTP/1.1 304 Not Modified\r\nContent-Length: 9\r\n\r\n"
                        + "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 200 OK\r\n\r\nuntil the close"),
                30,
                61))
        .containsExactly(
            "H:HTTP/1.1 100 Continue\r\n\r\n",
            "H:HTTP/1.1 204 No Content\r\n\r\n",
            "END",
            "H:HTTP/1.1 304 Not Modified\r\nContent-Length: 9\r\n\r\n",
            "END",
            "H:HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n",
            "B:ok",
            "END",
            "H:HTTP/1.1 200 OK\r\n\r\n",
            "B:until the close",
            "END");
  }

  @Test
  void chunkedResponseIsDechunkedForAnHttp10Client() {
    EmbeddedChannel ch = new EmbeddedChannel(new ResponseDecoder(16384));
    ((ResponseDecoder) ch.pipeline().first()).expect(false, true, false);
    assertThat(
            feed(
                ch,
                bytes(
                    "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n"),
                50,
                58))
        .containsExactly(
            "H:HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", "B:hello world", "END");
  }

  @Test
  void malformedResponsesAre502() {
    for (String bad :
        List.of(
            "HTTP/1.1 200 OK\nContent-Length: 0\n\n",
            "HTTP/1.1 200 OK\r\nX: a\r\n b\r\n\r\n",
            "HTTP/1.1 101 Switching\r\n\r\n",
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nq\r\n",
            "SSH-2.0-OpenSSH\r\n\r\n")) {
      EmbeddedChannel ch = new EmbeddedChannel(new ResponseDecoder(16384));
      assertThat(feed(ch, bytes(bad))).as(bad).last().isEqualTo("BAD:502");
    }
  }

  // Properties.

  @Provide
  Arbitrary<String> validRequests() {
    Arbitrary<String> method = Arbitraries.of("GET", "POST", "PUT", "DELETE", "PATCH", "X-CUSTOM");
    Arbitrary<String> target =
        Arbitraries.strings()
            .withChars("abcxyz/?=&%-._~0123456789")
            .ofMinLength(0)
            .ofMaxLength(40)
            .map(s -> "/" + s);
    Arbitrary<String> name =
        Arbitraries.strings()
            .withChars(
                "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&'*+-.^_`|~")
            .ofMinLength(1)
            .ofMaxLength(20)
            .filter(
                n ->
                    !List.of("content-length", "transfer-encoding", "host", "connection")
                        .contains(n.toLowerCase(Locale.ROOT)));
    Arbitrary<String> value =
        Arbitraries.strings()
            .withCharRange(' ', '~')
            .withChars('\t', '\u00e9')
            .ofMaxLength(30)
            .map(String::trim);
    Arbitrary<String> header = Combinators.combine(name, value).as((n, v) -> n + ": " + v + "\r\n");
    Arbitrary<String> body = Arbitraries.strings().withCharRange('a', 'z').ofMaxLength(50);
    return Combinators.combine(
            method,
            target,
            Arbitraries.of("1.0", "1.1"),
            header.list().ofMaxSize(12),
            body,
            Arbitraries.of(true, false))
        .as(
            (m, t, v, hs, b, chunked) -> {
              StringBuilder s = new StringBuilder(m + " " + t + " HTTP/" + v + "\r\nHost: h\r\n");
              hs.forEach(s::append);
              if (chunked && v.equals("1.1")) {
                s.append("Transfer-Encoding: chunked\r\n\r\n");
                if (!b.isEmpty()) {
                  s.append(Integer.toHexString(b.length())).append("\r\n").append(b).append("\r\n");
                }
                s.append("0\r\n\r\n");
              } else {
                s.append("Content-Length: ").append(b.length()).append("\r\n\r\n").append(b);
              }
              return s.toString();
            });
  }

  @Property(tries = 300)
  void validRequestsDecodeTheSameHoweverTheyAreSplit(
      @ForAll("validRequests") String a,
      @ForAll("validRequests") String b,
      @ForAll @IntRange(min = 1, max = 200) int cut1,
      @ForAll @IntRange(min = 1, max = 200) int cut2) {
    byte[] in = bytes(a + b);
    List<String> whole = decodeRequests(in);
    assertThat(whole).doesNotContain("BAD:400");
    assertThat(whole.stream().filter(s -> s.equals("END"))).hasSize(2);
    assertThat(decodeRequests(in, Math.min(cut1, cut2), Math.max(cut1, cut2) + 1)).isEqualTo(whole);
    assertThat(
            String.join(
                "", whole.stream().filter(s -> !s.equals("END")).map(s -> s.substring(2)).toList()))
        .isEqualTo(a + b);
  }

  @Property(tries = 300)
  void upstreamHeadOfAValidRequestParsesAgainWithTheSameHeaders(@ForAll("validRequests") String a)
      throws BadMessage {
    byte[] in = bytes(a);
    int end = a.indexOf("\r\n\r\n") + 4;
    HttpHead h = HeadParser.parseRequest(in, end);
    ByteBuf up =
        HeadWriter.request(io.netty.buffer.UnpooledByteBufAllocator.DEFAULT, h, bytes("127.0.0.1"));
    byte[] out = new byte[up.readableBytes()];
    up.readBytes(out).release();
    HttpHead again = HeadParser.parseRequest(out, out.length);
    assertThat(again.http10).isFalse();
    assertThat(again.method()).isEqualTo(h.method());
    assertThat(again.target()).isEqualTo(h.target());
    assertThat(again.contentLength).isEqualTo(h.contentLength);
    assertThat(again.chunked).isEqualTo(h.chunked);
    List<String> kept = new ArrayList<>();
    for (int i = 0; i < h.count; i++) {
      if (!h.drop[i]) {
        kept.add(
            new String(
                in,
                h.field(i, HttpHead.NAME),
                h.field(i, HttpHead.LINE_END) - h.field(i, HttpHead.NAME),
                StandardCharsets.ISO_8859_1));
      }
    }
    String outText = new String(out, StandardCharsets.ISO_8859_1);
    int at = 0;
    for (String line : kept) {
      if (line.toLowerCase(Locale.ROOT).startsWith("x-forwarded-for")) {
        continue;
      }
      int i = outText.indexOf(line, at);
      assertThat(i).as("kept in order: " + line).isGreaterThanOrEqualTo(at);
      at = i + line.length();
    }
    assertThat(again.header("x-forwarded-for")).endsWith("127.0.0.1");
  }

  @Property(tries = 500)
  void corruptedRequestsNeverCrashAndNeverFrameAmbiguously(
      @ForAll("validRequests") String a,
      @ForAll @IntRange(min = 0, max = 10_000) int where,
      @ForAll byte what,
      @ForAll @IntRange(min = 0, max = 2) int how) {
    StringBuilder s = new StringBuilder(a + "GET /next HTTP/1.1\r\n\r\n");
    int i = where % s.length();
    char c = (char) (what & 0xff);
    switch (how) {
      case 0 -> s.setCharAt(i, c);
      case 1 -> s.insert(i, c);
      default -> s.deleteCharAt(i);
    }
    List<String> out = decodeRequests(bytes(s.toString()), i, i + 1);
    for (String m : out) {
      if (m.startsWith("H:")) {
        String head = m.substring(2);
        HttpHead h;
        try {
          h = HeadParser.parseRequest(bytes(head), head.length());
        } catch (BadMessage e) {
          throw new AssertionError("emitted a head its parser refuses: " + head, e);
        }
        assertThat(h.contentLength >= 0 && h.transferEncoding).as(head).isFalse();
        assertThat(head).doesNotContain("\n\n").doesNotContain("\r\n ").doesNotContain("\r\n\t");
      }
    }
    // Whatever was accepted, a refusal ends it: nothing follows a BAD.
    int bad = out.indexOf("BAD:400");
    if (bad >= 0) {
      assertThat(out).hasSize(bad + 1);
    }
  }
}
