package io.fairway.proxy;

import static io.fairway.proxy.RawH2.CONTINUATION;
import static io.fairway.proxy.RawH2.DATA;
import static io.fairway.proxy.RawH2.END_HEADERS;
import static io.fairway.proxy.RawH2.END_STREAM;
import static io.fairway.proxy.RawH2.HEADERS;
import static io.fairway.proxy.RawH2.SETTINGS;
import static io.fairway.proxy.RawH2.frame;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fairway.config.model.TlsSettings;
import io.fairway.proxy.http2.H2Stats.Flood;
import io.fairway.testkit.TestCerts;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The known HTTP/2 floods driven with raw frames at an h2c listener (rapid reset over TLS too):
 * each ends the connection with GOAWAY within bounded time and moves its counter, leaves no stream
 * or connection behind, and the proxy then serves a fresh client. Every flood loop is bounded; a
 * loop that ran out before the proxy ended the connection fails the test.
 */
class Http2FloodTest {
  private static final Duration BOUND = Duration.ofSeconds(20);

  @AutoClose final Cleanup cleanup = new Cleanup();
  @TempDir Path dir;

  /** An h2c listener. */
  H2Proxy start() throws Exception {
    return H2Proxy.start(cleanup, H2Proxy.h2c());
  }

  H2Proxy start(TlsSettings tls) throws Exception {
    return H2Proxy.start(cleanup, tls);
  }

  RawH2 client(H2Proxy p, boolean read) throws IOException {
    return cleanup.track(RawH2.connect(p.vip(), read));
  }

  /** The connection ended with GOAWAY({@code code}), counted as {@code f}, and nothing is left. */
  static void endedWith(H2Proxy p, RawH2 c, long code, Flood f) {
    await().atMost(BOUND).until(() -> c.readDone.get());
    assertThat(c.goAway.get()).as("GOAWAY error code").isEqualTo(code);
    countedOnlyAs(p, f);
    nothingLeft(p);
  }

  /**
   * As {@link #endedWith}, for a client that goes on writing after the limit: the server closes
   * with that client's frames unread, so the kernel resets the connection, and a reset can destroy
   * the GOAWAY before the client read it. Either way the flood is counted as {@code f}.
   */
  static void endedWhileWriting(H2Proxy p, RawH2 c, long code, Flood f) {
    await().atMost(BOUND).until(() -> c.readDone.get());
    assertThat(c.goAway.get() == code || (c.goAway.get() == -1 && c.reset.get()))
        .as("GOAWAY " + code + " or a reset before it was read; was " + c.goAway.get())
        .isTrue();
    countedOnlyAs(p, f);
    nothingLeft(p);
  }

  /**
   * The client read at least the 200 resets the proxy sends before it gives up, unless a TCP reset
   * overtook them: the kernel then discards what the client had not read yet, GOAWAY included, so
   * only the proxy's own count is exact.
   */
  static void readAllBeforeTheEnd(RawH2 c, int resetsRead) {
    assertThat(resetsRead).isPositive();
    if (c.goAway.get() != -1) {
      assertThat(resetsRead).as("resets read before GOAWAY").isGreaterThanOrEqualTo(200);
    }
  }

  /** One connection closed, for {@code f} and nothing else. */
  static void countedOnlyAs(H2Proxy p, Flood f) {
    for (Flood other : Flood.values()) {
      assertThat(p.h2().floods(other)).as(other.label()).isEqualTo(other == f ? 1 : 0);
    }
  }

  static void nothingLeft(H2Proxy p) {
    await()
        .atMost(BOUND)
        .untilAsserted(
            () -> {
              assertThat(p.h2().openConnections()).as("open h2 connections").isZero();
              assertThat(p.h2().openStreams()).as("open streams").isZero();
            });
  }

  /** A new client gets its answer: the flood hurt only the connection that carried it. */
  void freshClientServed(H2Proxy p) throws Exception {
    freshClientServed(() -> client(p, true));
  }

  static void freshClientServed(Opener clients) throws Exception {
    RawH2 c = clients.open();
    c.get(1, "/");
    await().atMost(BOUND).until(() -> c.statuses.containsKey(1));
    assertThat(c.statuses.get(1)).isEqualTo("200");
  }

  /** Sends batches until the proxy refuses a write or closes; false: the loop ran out first. */
  static boolean flood(RawH2 c, int batches, Batch batch) {
    long start = System.nanoTime();
    long frames = 0;
    try {
      for (int i = 0; i < batches && !c.ended.get(); i++) {
        byte[][] b = batch.frames(i);
        c.send(b);
        frames += b.length;
      }
    } catch (IOException refused) {
      return true;
    } finally {
      // For docs/notes/http2-floods.md: what a flood got through before the proxy ended it.
      System.out.printf(
          "flood: %d frames written in %d ms%n", frames, (System.nanoTime() - start) / 1_000_000);
    }
    return c.ended.get();
  }

  interface Batch {
    byte[][] frames(int i);
  }

  @Test
  void rapidResetEndsTheConnection() throws Exception {
    H2Proxy p = start();
    rapidReset(p, () -> client(p, true));
  }

  /** The same over TLS (h2 by ALPN), where the HTTP/2 handlers sit behind the TLS handler. */
  @Test
  void rapidResetOverTlsEndsTheConnection() throws Exception {
    TestCerts.Pair cert = TestCerts.make(dir, "f", TestCerts.Kind.EC_SEC1, "f.test", "f.test");
    H2Proxy p = start(TlsTerminationTest.settings(cert));
    rapidReset(p, () -> cleanup.track(RawH2.connectTls(p.vip(), cert.cert(), "f.test")));
  }

  interface Opener {
    RawH2 open() throws Exception;
  }

  private void rapidReset(H2Proxy p, Opener clients) throws Exception {
    RawH2 c = clients.open();
    byte[] get = RawH2.request("GET", "/");
    int perBatch = 50;
    boolean ended =
        flood(
            c,
            100,
            i -> {
              byte[][] f = new byte[2 * perBatch][];
              for (int j = 0; j < perBatch; j++) {
                int id = 2 * (i * perBatch + j) + 1;
                f[2 * j] = frame(HEADERS, END_HEADERS | END_STREAM, id, get);
                f[2 * j + 1] = RawH2.rst(id, RawH2.CANCEL);
              }
              return f;
            });
    await().atMost(BOUND).until(() -> ended || c.ended.get());
    endedWith(p, c, RawH2.ENHANCE_YOUR_CALM, Flood.RAPID_RESET);
    assertThat(p.h2().streams()).as("streams served before the limit").isLessThanOrEqualTo(201);
    freshClientServed(clients);
  }

  @Test
  void continuationBeyondTheHeaderListSizeEndsTheConnection() throws Exception {
    H2Proxy p = start();
    RawH2 c = client(p, true);
    byte[] piece = new byte[8192]; // not "small": the header list size must stop these
    c.send(frame(HEADERS, 0, 1, piece));
    boolean ended = flood(c, 64, i -> new byte[][] {frame(CONTINUATION, 0, 1, piece)});
    await().atMost(BOUND).until(() -> ended || c.ended.get());
    endedWith(p, c, RawH2.PROTOCOL_ERROR, Flood.CONTINUATION);
    freshClientServed(p);
  }

  @Test
  void smallContinuationFramesEndTheConnection() throws Exception {
    H2Proxy p = start();
    RawH2 c = client(p, true);
    c.send(frame(HEADERS, 0, 1, new byte[] {(byte) 0x82})); // :method GET, the block not ended
    boolean ended = flood(c, 1000, i -> new byte[][] {frame(CONTINUATION, 0, 1, new byte[0])});
    await().atMost(BOUND).until(() -> ended || c.ended.get());
    endedWith(p, c, RawH2.ENHANCE_YOUR_CALM, Flood.CONTINUATION);
    freshClientServed(p);
  }

  @Test
  void settingsFloodOfAClientThatDoesNotReadEndsTheConnection() throws Exception {
    H2Proxy p = start();
    RawH2 c = client(p, false);
    byte[][] batch = new byte[1000][];
    Arrays.fill(batch, frame(SETTINGS, 0, 0, new byte[0]));
    assertThat(flood(c, 4000, i -> batch)).as("the proxy ended the flood").isTrue();
    controlFloodEnded(p, c);
  }

  @Test
  void pingFloodOfAClientThatDoesNotReadEndsTheConnection() throws Exception {
    H2Proxy p = start();
    RawH2 c = client(p, false);
    byte[][] batch = new byte[1000][];
    Arrays.fill(batch, RawH2.ping(42));
    assertThat(flood(c, 4000, i -> batch)).as("the proxy ended the flood").isTrue();
    controlFloodEnded(p, c);
  }

  private void controlFloodEnded(H2Proxy p, RawH2 c) throws Exception {
    await()
        .atMost(BOUND)
        .untilAsserted(
            () -> assertThat(p.h2().floods(Flood.CONTROL_FRAMES)).as("control_frames").isOne());
    countedOnlyAs(p, Flood.CONTROL_FRAMES);
    nothingLeft(p);
    assertThat(c.drainsToEnd(BOUND.toMillis())).as("the client sees the end").isTrue();
    freshClientServed(p);
  }

  @Test
  void emptyDataFramesEndTheConnection() throws Exception {
    H2Proxy p = start();
    RawH2 c = client(p, true);
    c.send(frame(HEADERS, END_HEADERS, 1, RawH2.request("POST", "/echo")));
    boolean ended = flood(c, 100, i -> new byte[][] {frame(DATA, 0, 1, new byte[0])});
    await().atMost(BOUND).until(() -> ended || c.ended.get());
    endedWith(p, c, RawH2.ENHANCE_YOUR_CALM, Flood.EMPTY_FRAMES);
    freshClientServed(p);
  }

  @Test
  void emptyHeadersFramesEndTheConnection() throws Exception {
    H2Proxy p = start();
    RawH2 c = client(p, true);
    // Each is a malformed request (no pseudo-header field) that Fairway resets: MadeYouReset.
    boolean ended =
        flood(
            c,
            1000,
            i -> new byte[][] {frame(HEADERS, END_HEADERS | END_STREAM, 2 * i + 1, new byte[0])});
    await().atMost(BOUND).until(() -> ended || c.ended.get());
    endedWhileWriting(p, c, RawH2.ENHANCE_YOUR_CALM, Flood.RESETS_SENT);
    // Malformed ones reset with PROTOCOL_ERROR; those that come while 100 resets are still being
    // written find the concurrent limit reached and are refused.
    assertThat(c.resetsWith(RawH2.PROTOCOL_ERROR)).isPositive();
    readAllBeforeTheEnd(c, c.resetsWith(RawH2.PROTOCOL_ERROR) + c.resetsWith(RawH2.REFUSED_STREAM));
    freshClientServed(p);
  }

  @Test
  void streamsBeyondTheConcurrentLimitAreRefusedThenTheConnectionEnded() throws Exception {
    H2Proxy p = start();
    RawH2 c = client(p, true); // which never acknowledges the proxy's SETTINGS
    byte[] slow = RawH2.request("GET", "/slow?ms=4000");
    byte[][] held = new byte[100][];
    for (int j = 0; j < held.length; j++) {
      held[j] = frame(HEADERS, END_HEADERS | END_STREAM, 2 * j + 1, slow);
    }
    c.send(held);
    await().atMost(BOUND).until(() -> p.h2().openStreams() == 100);
    boolean ended =
        flood(
            c,
            1000,
            i -> new byte[][] {frame(HEADERS, END_HEADERS | END_STREAM, 201 + 2 * i, slow)});
    await().atMost(BOUND).until(() -> ended || c.ended.get());
    endedWhileWriting(p, c, RawH2.ENHANCE_YOUR_CALM, Flood.RESETS_SENT);
    readAllBeforeTheEnd(c, c.resetsWith(RawH2.REFUSED_STREAM));
    assertThat(p.h2().refusedStreams()).isGreaterThanOrEqualTo(200);
    assertThat(p.h2().streams()).as("streams that reached the backend side").isEqualTo(100);
    assertThat(p.backend().mostAtOnce.get()).isLessThanOrEqualTo(100);
    freshClientServed(p);
  }
}
