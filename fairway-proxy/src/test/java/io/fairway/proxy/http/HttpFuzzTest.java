package io.fairway.proxy.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.fairway.proxy.ProxyOptions;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Coverage-guided fuzzing (Jazzer) of the HTTP/1.1 parsing a proxy lives or dies by: the head
 * parser, the request and response decoders over a real (embedded) Netty pipeline with the input
 * split into reads where the fuzzer says, and the chunked body decoder. Each target checks:
 *
 * <ul>
 *   <li>only the documented failure escapes: {@link BadMessage} from the parsers, a {@link
 *       StrictRequestDecoder.Malformed} message (never an exception) from the decoders, with a
 *       status the proxy answers with and a one-line reason;
 *   <li>what is decoded is consistent: offsets inside the head, never Content-Length and chunked
 *       together on a request, body bytes are the input's own (verbatim: byte for byte), nothing
 *       after a Malformed;
 *   <li>allocation is bounded by the input ({@link #alloc}) and every buffer is released.
 * </ul>
 *
 * The normal build replays each target's seeds once (src/test/resources/io/fairway/proxy/
 * HttpFuzzTestInputs); {@code bench/fuzz.sh} fuzzes them for real (docs/testing.md, "Fuzzing").
 */
class HttpFuzzTest {
  static final Set<Integer> REQUEST_STATUSES = Set.of(400, 414, 431, 501, 505);
  static final Set<Integer> RESPONSE_STATUSES = Set.of(502);

  private static final com.sun.management.ThreadMXBean THREADS =
      (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

  static {
    // Netty's and the decoders' one-time initialisation (tens of MB of class loading and pools)
    // is not what one input costs: pay it before any input is measured.
    byte[] warm =
        "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nx\r\n0\r\n\r\n"
            .getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    EmbeddedChannel req = new EmbeddedChannel(new StrictRequestDecoder(ProxyOptions.defaults()));
    req.writeInbound(Unpooled.wrappedBuffer(warm));
    req.finishAndReleaseAll();
    EmbeddedChannel resp = new EmbeddedChannel(new ResponseDecoder(2048));
    resp.writeInbound(
        Unpooled.wrappedBuffer(
            "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx"
                .getBytes(java.nio.charset.StandardCharsets.US_ASCII)));
    resp.finishAndReleaseAll();
  }

  /** An allocation bound: a fixed allowance for the pipeline plus a multiple of the input. */
  static void alloc(long before, int inputLength) {
    long used = THREADS.getCurrentThreadAllocatedBytes() - before;
    assertThat(used)
        .as("bytes allocated for %d input bytes", inputLength)
        .isLessThan((32L << 20) + 256L * inputLength);
  }

  /** The head as the decoders hand it over: up to and including its empty line. */
  static byte[] head(byte[] in) {
    int lineStart = 0;
    for (int i = 0; i < in.length; i++) {
      if (in[i] == '\n') {
        int len = i - lineStart;
        if (lineStart > 0 && (len == 0 || (len == 1 && in[i - 1] == '\r'))) {
          return java.util.Arrays.copyOf(in, i + 1);
        }
        lineStart = i + 1;
      }
    }
    byte[] b = java.util.Arrays.copyOf(in, in.length + 4);
    System.arraycopy(new byte[] {'\r', '\n', '\r', '\n'}, 0, b, in.length, 4);
    return b;
  }

  @FuzzTest(maxDuration = "5m")
  void headParser(FuzzedDataProvider data) {
    boolean request = data.consumeBoolean();
    byte[] b = head(data.consumeRemainingAsBytes());
    long before = THREADS.getCurrentThreadAllocatedBytes();
    HttpHead h;
    try {
      h = request ? HeadParser.parseRequest(b, b.length) : HeadParser.parseResponse(b, b.length);
    } catch (BadMessage e) {
      assertThat(request ? REQUEST_STATUSES : RESPONSE_STATUSES).contains(e.status);
      assertOneLine(e.reason);
      return;
    }
    alloc(before, b.length);
    assertConsistent(h, b.length);
  }

  static void assertConsistent(HttpHead h, int length) {
    assertThat(h.length).isEqualTo(length);
    assertThat(h.startLineEnd).isBetween(1, length);
    if (h.request) {
      assertThat(h.methodEnd).isPositive();
      assertThat(h.targetStart).isGreaterThan(h.methodEnd);
      assertThat(h.targetEnd).isBetween(h.targetStart + 1, h.startLineEnd);
      assertThat(h.chunked && h.contentLength >= 0).as("CL and chunked on a request").isFalse();
    } else {
      assertThat(h.status).isBetween(100, 999);
    }
    assertThat(h.contentLength).isGreaterThanOrEqualTo(-1);
    int previous = h.startLineEnd;
    for (int i = 0; i < h.count; i++) {
      int ns = h.field(i, HttpHead.NAME);
      int ne = h.field(i, HttpHead.NAME_END);
      int vs = h.field(i, HttpHead.VALUE);
      int ve = h.field(i, HttpHead.VALUE_END);
      int le = h.field(i, HttpHead.LINE_END);
      assertThat(ns).as("header %d", i).isGreaterThanOrEqualTo(previous);
      assertThat(ns < ne && ne < vs + 1 && vs <= ve && ve <= le && le <= length)
          .as("header %d offsets %d %d %d %d %d", i, ns, ne, vs, ve, le)
          .isTrue();
      for (int k = ns; k < ne; k++) {
        assertThat(HeadParser.isTchar(h.bytes[k])).as("name byte %d", k).isTrue();
      }
      previous = le;
    }
  }

  /** Once every decoded message is released, no read's buffer may still be held (a leak). */
  static void assertReleased(List<ByteBuf> reads) {
    for (int i = 0; i < reads.size(); i++) {
      assertThat(reads.get(i).refCnt()).as("references left on read %d", i).isZero();
    }
  }

  static void assertOneLine(String reason) {
    assertThat(reason).isNotBlank().doesNotContain("\r").doesNotContain("\n");
  }

  /**
   * Writes the input in reads of the sizes the fuzzer picks (each read's buffer goes to {@code
   * reads}), then ends the input.
   */
  static List<Object> feed(
      EmbeddedChannel ch, FuzzedDataProvider data, byte[] input, List<ByteBuf> reads) {
    List<Object> out = new ArrayList<>();
    int from = 0;
    while (from < input.length) {
      int n =
          data.remainingBytes() > 0 ? data.consumeInt(1, input.length - from) : input.length - from;
      ByteBuf read = Unpooled.copiedBuffer(input, from, n);
      reads.add(read);
      ch.writeInbound(read);
      from += n;
      drain(ch, out);
    }
    ch.finish();
    drain(ch, out);
    return out;
  }

  private static void drain(EmbeddedChannel ch, List<Object> out) {
    Object m;
    while ((m = ch.readInbound()) != null) {
      out.add(m);
    }
  }

  /**
   * Checks the decoded sequence and releases its buffers; returns the body bytes seen. (A slice
   * shares its reference count with the cumulation, so its own release says nothing: {@link
   * #assertReleased} checks the reads at the end.)
   */
  static long checkSequence(List<Object> out, int inputLength, Set<Integer> statuses) {
    long body = 0;
    boolean bad = false;
    try {
      for (Object m : out) {
        assertThat(bad).as("a message after Malformed: %s", m).isFalse();
        if (m instanceof ByteBuf b) {
          body += b.readableBytes();
        } else if (m instanceof StrictRequestDecoder.Malformed mal) {
          assertThat(statuses).contains(mal.status());
          assertOneLine(mal.reason());
          bad = true;
        } else if (m instanceof HttpHead h) {
          assertThat(h.length).isLessThanOrEqualTo(inputLength);
        } else {
          assertThat(m).isIn(StrictRequestDecoder.END, StrictRequestDecoder.TRUNCATED);
        }
      }
    } finally {
      for (Object m : out) {
        if (m instanceof ByteBuf b) {
          b.release();
        }
      }
    }
    assertThat(body).as("body bytes").isLessThanOrEqualTo(inputLength);
    return body;
  }

  @FuzzTest(maxDuration = "5m")
  void requestDecoder(FuzzedDataProvider data) {
    byte[] input = data.consumeBytes(data.consumeInt(0, 8192));
    long before = THREADS.getCurrentThreadAllocatedBytes();
    StrictRequestDecoder decoder =
        new StrictRequestDecoder(ProxyOptions.builder().maxHeaderSize(1024).build());
    EmbeddedChannel ch = new EmbeddedChannel(decoder);
    List<ByteBuf> reads = new ArrayList<>();
    List<Object> out = feed(ch, data, input, reads);
    checkSequence(out, input.length, REQUEST_STATUSES);
    ByteBuf held = decoder.takeHeldAtEof();
    if (held != null) {
      held.release();
    }
    assertReleased(reads);
    alloc(before, input.length);
  }

  @FuzzTest(maxDuration = "5m")
  void responseDecoder(FuzzedDataProvider data) {
    boolean headRequest = data.consumeBoolean();
    boolean dechunk = data.consumeBoolean();
    boolean upgrade = data.consumeBoolean();
    byte[] input = data.consumeBytes(data.consumeInt(0, 8192));
    long before = THREADS.getCurrentThreadAllocatedBytes();
    ResponseDecoder decoder = new ResponseDecoder(2048);
    decoder.expect(headRequest, dechunk, upgrade);
    EmbeddedChannel ch = new EmbeddedChannel(decoder);
    List<ByteBuf> reads = new ArrayList<>();
    List<Object> out = feed(ch, data, input, reads);
    checkSequence(out, input.length, RESPONSE_STATUSES);
    assertReleased(reads);
    alloc(before, input.length);
  }

  @FuzzTest(maxDuration = "5m")
  void chunkedBody(FuzzedDataProvider data) {
    boolean verbatim = data.consumeBoolean();
    byte[] input = data.consumeBytes(data.consumeInt(0, 8192));
    long before = THREADS.getCurrentThreadAllocatedBytes();
    ChunkedBody body = new ChunkedBody(400);
    // As a ByteToMessageDecoder would: a cumulation the decoder consumes from, reads appended.
    ByteBuf cumulation = Unpooled.buffer();
    ByteBuf passed = Unpooled.buffer();
    List<Object> out = new ArrayList<>();
    int from = 0;
    int consumed = 0;
    boolean done = false;
    try {
      while (from < input.length && !done) {
        int n =
            data.remainingBytes() > 0
                ? data.consumeInt(1, input.length - from)
                : input.length - from;
        cumulation.writeBytes(input, from, n);
        from += n;
        int r = cumulation.readerIndex();
        try {
          done = body.decode(cumulation, out, verbatim);
        } catch (BadMessage e) {
          assertThat(e.status).isEqualTo(400);
          assertOneLine(e.reason);
          return;
        }
        assertThat(cumulation.readerIndex()).isGreaterThanOrEqualTo(r);
        consumed += cumulation.readerIndex() - r;
        for (Object m : out) {
          ByteBuf b = (ByteBuf) m;
          passed.writeBytes(b);
          b.release();
        }
        out.clear();
        cumulation.discardReadBytes();
      }
      if (verbatim) {
        byte[] got = new byte[passed.readableBytes()];
        passed.readBytes(got);
        assertThat(got)
            .as("verbatim body = the bytes consumed")
            .isEqualTo(java.util.Arrays.copyOf(input, consumed));
      } else {
        assertThat(passed.readableBytes()).isLessThanOrEqualTo(consumed);
      }
      alloc(before, input.length);
    } finally {
      out.forEach(m -> ((ByteBuf) m).release());
      cumulation.release();
      passed.release();
    }
  }
}
